def inc(x):
    return x + 1


def dbl(x):
    return x * 2


def sq(x):
    return x * x


def compose_all(xs):
    result = []
    for x in xs:
        result.append(sq(dbl(inc(x))) - inc(x))
    return result
