def running_max(xs):
    best = None

    def consider(x):
        nonlocal best
        if best is None or x > best:
            best = x
        return best

    return [consider(x) for x in xs]
