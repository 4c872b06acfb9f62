def skip_multiples(limit, k):
    found = []
    n = 0
    while True:
        n += 1
        if n > limit:
            break
        if n % k == 0:
            continue
        found.append(n)
    return found
