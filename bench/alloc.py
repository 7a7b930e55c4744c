def main():
    total = 0
    i = 0
    while i < 10000000:
        pair = [i, 1]
        total += len(pair)
        i += 1
    print(total)


main()
