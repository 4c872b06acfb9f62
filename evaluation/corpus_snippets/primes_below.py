def primes_below(n):
    found = []
    for k in range(2, n):
        for d in found:
            if k % d == 0:
                break
        else:
            found.append(k)
    return found
