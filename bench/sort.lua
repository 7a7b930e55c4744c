local xs = {}
local seed = 42
for i = 1, 200000 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  xs[#xs + 1] = seed % 1000000
end
local a = {} for i = 1, #xs do a[i] = xs[i] end
table.sort(a, function(x, y) return x < y end)
local b = {} for i = 1, #xs do b[i] = xs[i] end
table.sort(b, function(x, y) return -x < -y end)
print(a[1] + a[200000] + b[1])
