# actions: next next next next next next next next
def countdown(n):
    while n > 0:
        yield n
        n -= 1


total = 0  # BP
for k in countdown(2):
    total += k
print(total)
