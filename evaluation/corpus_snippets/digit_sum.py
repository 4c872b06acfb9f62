def digit_sum(n):
    total = 0
    while n > 0:
        n, d = divmod(n, 10)
        total += d
    return total
