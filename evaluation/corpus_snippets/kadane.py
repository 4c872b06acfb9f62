def max_subarray(xs):
    best = current = xs[0]
    for x in xs[1:]:
        current = max(x, current + x)
        best = max(best, current)
    return best
