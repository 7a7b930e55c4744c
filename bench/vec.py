v = []
for i in range(2000000):
    v.append(i)
total = 0
for j in range(len(v)):
    total += v[j]
print(total)
