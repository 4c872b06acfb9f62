def first_negative(xs):
    for i, x in enumerate(xs):
        if x < 0:
            break
    else:
        return -1
    return i
