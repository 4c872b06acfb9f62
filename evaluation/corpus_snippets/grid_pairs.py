def grid_pairs(n):
    return [(r, c) for r in range(n) for c in range(n) if r < c]
