def weighted_sum(*values, weight=1, offset=0):
    total = offset
    for v in values:
        total += v * weight
    return total
