# actions: stepIn stepOut stepIn stepOut next
def f(v):
    return v * 3


total = f(1) + f(2)  # BP
print(total)
