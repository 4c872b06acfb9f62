def position_of(xs, x):
    return list(xs).index(x)


def list_ops(xs, x):
    items = list(xs)
    items.append(x)
    items.insert(0, x)
    items.remove(x)
    i = position_of(items, x)
    items.extend([x, x + 1])
    items.reverse()
    tail = items.pop()
    return items, i, tail
