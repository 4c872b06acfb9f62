# actions: next next next next next next next next next
n = 0  # BP
while n < 5:
    n += 2
    if n == 4:
        break
else:
    n = -1
print(n)
