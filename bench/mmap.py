def main():
    words = ["word" + str(w * 7919) for w in range(5000)]
    counts = {}
    for i in range(3000000):
        k = words[(i * 7919) % 5000]
        counts[k] = counts.get(k, 0) + 1
    print(len(counts))
    print("Some(value: %d)" % counts["word0"])


main()
