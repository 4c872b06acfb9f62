# actions: stepIn stepIn stepIn stepIn next stepIn stepIn
def merge(left, right):
    return left + right  # BP hit == 1


def halves(xs):
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    return merge(halves(xs[:mid]), halves(xs[mid:]))


print(halves([3, 1, 2]))
