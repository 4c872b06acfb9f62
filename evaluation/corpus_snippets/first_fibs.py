def fib_gen():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def first_fibs(n):
    gen = fib_gen()
    return [next(gen) for _ in range(n)]
