# actions: stepIn next stepIn next next next next
def logged(func):
    def wrapper(*args):
        result = func(*args)
        return result

    return wrapper


@logged
def double(v):
    return v * 2


got = double(4)  # BP
print(got)
