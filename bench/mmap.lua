local words = {}
for w = 0, 4999 do words[#words + 1] = "word" .. tostring(w * 7919) end
local counts = {}
local size = 0
for i = 0, 2999999 do
  local k = words[(i * 7919) % 5000 + 1]
  local c = counts[k]
  if c == nil then c = 0; size = size + 1 end
  counts[k] = c + 1
end
print(size)
print("Some(value: " .. counts["word0"] .. ")")
