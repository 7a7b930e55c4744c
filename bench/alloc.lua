local total = 0
for i = 0, 9999999 do
  local pair = {i, 1}
  total = total + #pair
end
print(total)
