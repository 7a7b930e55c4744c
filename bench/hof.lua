local function map(xs, f) local r = {} for i = 1, #xs do r[i] = f(xs[i]) end return r end
local function filter(xs, f) local r = {} for i = 1, #xs do local x = xs[i] if f(x) then r[#r + 1] = x end end return r end
local function fold(xs, init, f) local acc = init for i = 1, #xs do acc = f(acc, xs[i]) end return acc end
local xs = {}
for i = 0, 999999 do xs[#xs + 1] = i end
local total = 0
for round = 1, 3 do
  local ys = map(xs, function(x) return x * 3 end)
  local zs = filter(ys, function(x) return x % 2 == 0 end)
  total = total + fold(zs, 0, function(acc, x) return acc + x end)
end
print(total)
