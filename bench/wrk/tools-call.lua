-- wrk script: POST tools/call (echo) to an MCP endpoint. MCP_SESSION_ID, when set, is sent as
-- Mcp-Session-Id (stateful servers). Non-200 answers are counted and printed by done().
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local session = os.getenv("MCP_SESSION_ID")
if session ~= nil and session ~= "" then wrk.headers["Mcp-Session-Id"] = session end

local counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. counter .. ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}')
end

local bad = 0
response = function(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d non200=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), bad,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
