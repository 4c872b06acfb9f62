def bit_count(n):
    count = 0
    while n:
        n &= n - 1
        count += 1
    return count


def bit_table(xs):
    return {x: bit_count(x) for x in xs}
