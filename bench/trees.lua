local function make(d)
  if d == 0 then return {false, false} end
  return {make(d - 1), make(d - 1)}
end
local function check(t)
  if not t then return 0 end
  return 1 + check(t[1]) + check(t[2])
end
local long_lived = make(16)
local total = 0
for d = 4, 16, 4 do
  local iterations = 1 << (16 - d + 4)
  for i = 1, iterations do total = total + check(make(d)) end
end
print(total + check(long_lived))
