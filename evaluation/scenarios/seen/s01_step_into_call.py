# actions: stepIn next next next next
def add(a, b):
    total = a + b
    return total


x = 1  # BP
y = add(x, 2)
print(y)
