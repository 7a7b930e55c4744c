# Twin of rest.geno: the same recursive walks, written the way a Python
# programmer would (an index into the list instead of a tail).
import sys

sys.setrecursionlimit(5000)


def total(xs, i):
    if i == len(xs):
        return 0
    return xs[i] + total(xs, i + 1)


def rises(prev, xs, i):
    if i == len(xs):
        return 0
    h = xs[i]
    if h > prev:
        return 1 + rises(h, xs, i + 1)
    return rises(h, xs, i + 1)


def evens(xs, i, acc):
    if i == len(xs):
        return acc
    h = xs[i]
    if h % 2 == 0:
        acc.append(h)
    return evens(xs, i + 1, acc)


xs = []
seed = 7
for _ in range(400):
    seed = (seed * 1103515245 + 12345) % 2147483648
    xs.append(seed % 1000)
s = 0
for _ in range(3000):
    s = s + total(xs, 0) + rises(-1, xs, 0) + len(evens(xs, 0, []))
print(s)
