# actions: continue continue continue continue
def squares(n):
    for i in range(n):
        yield i * i  # BP


print(list(squares(3)))
