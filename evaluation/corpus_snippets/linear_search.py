def linear_search(xs, target):
    i = 0
    while i < len(xs):
        if xs[i] == target:
            return i
        i += 1
    return -1
