# actions: stepOut stepOut next next
def leaf(v):
    w = v + 1  # BP
    return w


def middle(v):
    got = leaf(v)
    return got * 2


def top():
    r = middle(1)
    return r


print(top())
