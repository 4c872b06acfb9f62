# actions: continue next next stepOut
def depth(n):
    if n == 0:  # BP if n == 1
        return 0
    return 1 + depth(n - 1)


print(depth(3))
