def map_filter(xs):
    evens = filter(lambda x: x % 2 == 0, xs)
    return list(map(lambda x: x * 3, evens))
