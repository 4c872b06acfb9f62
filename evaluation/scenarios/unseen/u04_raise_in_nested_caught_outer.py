# actions: next next next next
def inner():
    raise KeyError("k")


def outer():
    inner()
    return 1


try:
    outer()  # BP
except KeyError:
    got = 0
print(got)
