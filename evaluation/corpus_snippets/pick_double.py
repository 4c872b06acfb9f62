def pick_double(xs, i):
    try:
        value = xs[i]
    except IndexError:
        return "out of range"
    else:
        return value * 2


def pick_doubles(xs, indices):
    return [pick_double(xs, i) for i in indices]
