from functools import cmp_to_key
xs = []
seed = 42
for i in range(200000):
    seed = (seed * 1103515245 + 12345) % 2147483648
    xs.append(seed % 1000000)
a = sorted(xs, key=cmp_to_key(lambda x, y: x - y))
b = sorted(xs, key=lambda x: -x)
print(a[0] + a[199999] + b[0])
