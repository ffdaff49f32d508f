-- wrk script: GET a random one of N small keys under PREFIX.
local n = tonumber(os.getenv("BENCH_KEYS") or "1000")
local prefix = os.getenv("BENCH_PREFIX") or "/"
math.randomseed(os.time())
request = function()
  return wrk.format("GET", prefix .. "k" .. math.random(0, n - 1))
end
