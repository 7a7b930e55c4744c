s = ""
i = 0
while i < 1000000:
    s += str(i % 10)
    i += 1
print(len(s))
