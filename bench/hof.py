from functools import reduce
xs = list(range(0, 1000000))
total = 0
for _ in range(3):
    ys = list(map(lambda x: x * 3, xs))
    zs = list(filter(lambda x: x % 2 == 0, ys))
    total += reduce(lambda acc, x: acc + x, zs, 0)
print(total)
