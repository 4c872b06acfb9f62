# actions: next next next
def parse(text):
    return int(text)


try:
    n = parse("x1")  # BP
except ValueError as err:
    n = -1
print(n)
