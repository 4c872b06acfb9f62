def set_ops(a, b):
    left = set(a)
    right = set(b)
    both = sorted(left & right)
    return both, sorted(left | right), sorted(left - right), len(left ^ right)
