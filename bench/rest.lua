-- Twin of rest.geno: the same recursive walks, written the way a Lua
-- programmer would (an index into the table instead of a tail).
local function total(xs, i)
  if i > #xs then return 0 end
  return xs[i] + total(xs, i + 1)
end

local function rises(prev, xs, i)
  if i > #xs then return 0 end
  local h = xs[i]
  if h > prev then return 1 + rises(h, xs, i + 1) end
  return rises(h, xs, i + 1)
end

local function evens(xs, i, acc)
  if i > #xs then return acc end
  local h = xs[i]
  if h % 2 == 0 then acc[#acc + 1] = h end
  return evens(xs, i + 1, acc)
end

local xs = {}
local seed = 7
for i = 1, 400 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  xs[#xs + 1] = seed % 1000
end
local sum = 0
for round = 1, 3000 do
  sum = sum + total(xs, 1) + rises(-1, xs, 1) + #evens(xs, 1, {})
end
print(sum)
