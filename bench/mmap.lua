local counts = {}
local size = 0
for i = 0, 999999 do
  local k = (i * 7919) % 50000
  local c = counts[k]
  if c == nil then c = 0; size = size + 1 end
  counts[k] = c + 1
end
print(size)
