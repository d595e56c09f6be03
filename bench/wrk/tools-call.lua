-- wrk script: POST tools/call (echo) to an MCP endpoint. MCP_SESSION_ID, when set, is sent as
-- Mcp-Session-Id with MCP-Protocol-Version (stateful servers). done() prints one RESULT line that
-- bench/http.mjs parses; non-2xx answers are counted there so they never pass as throughput.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
local session = os.getenv("MCP_SESSION_ID")
if session ~= nil and session ~= "" then
  wrk.headers["Mcp-Session-Id"] = session
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
end

local counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. counter .. ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}')
end

-- response() runs in each wrk thread's Lua state, done() in the main one: setup() keeps the
-- threads so done() can read their counts (a plain upvalue would always read 0 there).
local threads = {}
setup = function(thread)
  table.insert(threads, thread)
end

non2xx = 0
response = function(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

done = function(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + thread:get("non2xx") end
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), bad,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
