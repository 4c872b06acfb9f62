# actions: next next next
def square(n):
    result = n * n
    return result  # BP


value = square(4)
print(value)
