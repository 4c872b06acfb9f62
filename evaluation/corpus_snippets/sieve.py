def sieve(n):
    flags = [True] * (n + 1)
    flags[0] = flags[1] = False
    p = 2
    while p * p <= n:
        if flags[p]:
            for multiple in range(p * p, n + 1, p):
                flags[multiple] = False
        p += 1
    return [i for i, ok in enumerate(flags) if ok]
