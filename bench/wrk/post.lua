-- wrk script shared by the HTTP benchmarks: POSTs WRK_BODY with the headers in WRK_HEADERS
-- ("Name: value" lines). "{id}" in the body becomes a per-request counter (distinct JSON-RPC ids).
-- done() prints the one RESULT line bench/harness.mjs parses; non-2xx answers are counted there,
-- so a refused request never passes as throughput.
wrk.method = "POST"
for line in (os.getenv("WRK_HEADERS") or ""):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  if name ~= nil then wrk.headers[name] = value end
end
local template = os.getenv("WRK_BODY")
if template == nil or template == "" then error("WRK_BODY is not set") end
local templated = template:find("{id}", 1, true) ~= nil

local counter = 0
request = function()
  if not templated then return wrk.format(nil, nil, nil, template) end
  counter = counter + 1
  return wrk.format(nil, nil, nil, (template:gsub("{id}", tostring(counter))))
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
