local i, total = 0, 0
while i < 20000000 do
  total = total + i % 7
  i = i + 1
end
print(total)
