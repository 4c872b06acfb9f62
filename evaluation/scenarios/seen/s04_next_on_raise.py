# actions: next next next
values = [1, 2]
try:
    third = values[5]  # BP
except IndexError:
    third = None
print(third)
