def numbers_until(xs, stop):
    for x in xs:
        if x == stop:
            return
        yield x


def take_until(xs, stop):
    gen = numbers_until(xs, stop)
    head = next(gen, None)
    rest = [y * 10 for y in gen]
    return head, rest
