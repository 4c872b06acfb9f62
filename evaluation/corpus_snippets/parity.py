def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def parity_words(xs):
    return ["even" if is_even(x) else "odd" for x in xs]
