def tuple_stats(values):
    t = tuple(values)
    top = max(t)
    return t.count(top), t.index(top), t[::-1][:3]
