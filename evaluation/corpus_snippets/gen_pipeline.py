def gen_pipeline(xs):
    evens = (x for x in xs if x % 2 == 0)
    squares = (x * x for x in evens)
    return sum(squares), max((x for x in xs), default=0)
