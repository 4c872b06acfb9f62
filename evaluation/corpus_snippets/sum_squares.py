def sum_squares(xs):
    return sum(x * x for x in xs if x % 3)
