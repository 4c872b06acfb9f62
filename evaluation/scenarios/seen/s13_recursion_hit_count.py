# actions: next stepOut stepOut next
def fact(n):
    if n <= 1:
        return 1  # BP hit 1
    return n * fact(n - 1)


print(fact(4))
