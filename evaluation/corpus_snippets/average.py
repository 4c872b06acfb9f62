def average(xs):
    total = 0
    for x in xs:
        total += x
    return total / len(xs)
