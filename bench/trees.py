import sys
sys.setrecursionlimit(10000)
def make(d):
    if d == 0:
        return (None, None)
    return (make(d - 1), make(d - 1))
def check(t):
    if t is None:
        return 0
    return 1 + check(t[0]) + check(t[1])
long_lived = make(16)
total = 0
for d in range(4, 17, 4):
    for i in range(1 << (16 - d + 4)):
        total += check(make(d))
print(total + check(long_lived))
