def interleave(a, b):
    for x, y in zip(a, b):
        yield x
        yield y
    yield from a[len(b):]
    yield from b[len(a):]


def interleaved(a, b):
    return list(interleave(a, b))
