# actions: stepIn next stepIn next next next next
def outer(x):
    def inner(y):
        return y + x

    z = inner(1)
    return z * 2


r = outer(5)  # BP
print(r)
