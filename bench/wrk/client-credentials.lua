-- wrk script: POST a client_credentials token request (RFC 6749 §4.4) to an authorization
-- server's token endpoint. AUTH_BASIC is the client's "Authorization: Basic …" value and
-- TOKEN_BODY the form body, both from bench/auth.mjs. done() prints one RESULT line that
-- bench/auth.mjs parses; non-2xx answers are counted there so they never pass as throughput.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Accept"] = "application/json"
wrk.headers["Authorization"] = os.getenv("AUTH_BASIC")
wrk.body = os.getenv("TOKEN_BODY")

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
