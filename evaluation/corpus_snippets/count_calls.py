def count_calls(func):
    def wrapper(*args, **kwargs):
        wrapper.calls += 1
        return func(*args, **kwargs)

    wrapper.calls = 0
    return wrapper


@count_calls
def square(x):
    return x * x


def sum_of_squares(xs):
    total = 0
    for x in xs:
        total += square(x)
    return total, square.calls
