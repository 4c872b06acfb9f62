# exceptions: uncaught
# actions: continue
def divide(a, b):
    return a / b


def mean(xs):
    return divide(sum(xs), len(xs))


print(mean([2, 4]))  # BP
print(mean([]))
