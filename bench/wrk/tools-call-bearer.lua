-- wrk script: POST tools/call (echo) to an MCP endpoint with `Authorization: Bearer <token>`, the
-- token from BEARER_TOKEN (required). Otherwise the same as tools-call.lua: the JSON-RPC id varies
-- per request, and done() prints the one RESULT line bench/harness.mjs parses; non-2xx answers are
-- counted there so a refused token never passes as throughput.
local token = os.getenv("BEARER_TOKEN")
if token == nil or token == "" then error("BEARER_TOKEN is not set") end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Authorization"] = "Bearer " .. token

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
