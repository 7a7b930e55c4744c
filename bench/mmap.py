counts = {}
for i in range(1000000):
    k = (i * 7919) % 50000
    counts[k] = counts.get(k, 0) + 1
print(len(counts))
