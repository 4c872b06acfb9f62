def classify(n):
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    if n % 2 == 0:
        return "even"
    if n > 100:
        return "big"
    return "odd"


def classify_all(xs):
    return [classify(x) for x in xs]
