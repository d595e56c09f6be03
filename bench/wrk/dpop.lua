-- wrk script of bench/dpop.mjs: bench/wrk/post.lua's request (WRK_BODY, WRK_HEADERS, "{id}"), plus
-- a DPoP proof per request from WRK_PROOFS (a file, one proof per line, each used once: a proof
-- used twice is a replay the server refuses, which would count as non-2xx). The RESULT line is
-- post.lua's.
dofile(os.getenv("WRK_POST_LUA"))

local proofs = {}
for line in io.lines(os.getenv("WRK_PROOFS")) do
  if line ~= "" then proofs[#proofs + 1] = line end
end
if #proofs == 0 then error("WRK_PROOFS holds no proof") end

local template = os.getenv("WRK_BODY")
local next_proof = 0
local counter = 0
request = function()
  next_proof = next_proof % #proofs + 1
  counter = counter + 1
  wrk.headers["DPoP"] = proofs[next_proof]
  return wrk.format(nil, nil, nil, (template:gsub("{id}", tostring(counter))))
end
