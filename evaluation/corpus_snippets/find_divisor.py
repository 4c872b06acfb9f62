def find_divisor(n, start):
    d = start
    while d < n:
        if n % d == 0:
            break
        d += 1
    else:
        return None
    return d
