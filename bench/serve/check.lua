-- wrk script for bench/serve.sh: every request carries its own number
-- (unique across threads) and every response must answer exactly one
-- request that was sent and not answered yet: its value names the
-- request, and a value that names no outstanding request (another
-- client's, a repeated one, or garbage) counts as mismatched.
--   WORKLOAD=small  main returns ID                 (value must be ID)
--   WORKLOAD=fib    main returns fib(20) + ID       (value must be 6765 + ID)
--   WORKLOAD=slow   main returns fib(25) + ID       (value must be 75025 + ID;
--                   a run of several milliseconds, so the kill test finds
--                   workers alive to kill)
-- A non-200 answer, or a value that is not the one asked for, is counted;
-- done() prints the totals as `checked=N mismatched=N non200=N`.
local workload = os.getenv("WORKLOAD") or "small"
local counter, pending = 0, {}

checked, mismatched, non200 = 0, 0, 0
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  counter = id * 100000000
end

local fib_of = {fib = {20, 6765, 1000000}, slow = {25, 75025, 10000000}}

local function body_for(n)
  local f = fib_of[workload]
  if f then
    return '{"max_steps":' .. f[3] .. ',"source":"func fib(n: Int) -> Int\\n    example 10 -> 55\\n' ..
      '    if n < 2 then\\n        return n\\n    end if\\n    return fib(n - 1) + fib(n - 2)\\nend func\\n\\n' ..
      'func main() -> Int\\n    return fib(' .. f[1] .. ') + ' .. n .. '\\nend func\\n"}'
  end
  return '{"source":"func main() -> Int\\n    return ' .. n .. '\\nend func\\n"}'
end

function request()
  counter = counter + 1
  pending[counter] = true
  return wrk.format("POST", "/run", {["Content-Type"] = "application/json"}, body_for(counter))
end

function response(status, headers, body)
  checked = checked + 1
  if status ~= 200 then
    non200 = non200 + 1
    return
  end
  local got = tonumber(string.match(body, '"value":(%-?%d+)'))
  local n = got
  if n and fib_of[workload] then n = n - fib_of[workload][2] end
  if n and pending[n] then
    pending[n] = nil
  else
    mismatched = mismatched + 1
  end
end

function done(summary, latency, requests)
  local c, m, e = 0, 0, 0
  for _, t in ipairs(threads) do
    c = c + (t:get("checked") or 0)
    m = m + (t:get("mismatched") or 0)
    e = e + (t:get("non200") or 0)
  end
  io.write(string.format("checked=%d mismatched=%d non200=%d p50_ms=%.2f p99_ms=%.2f\n", c, m, e,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
