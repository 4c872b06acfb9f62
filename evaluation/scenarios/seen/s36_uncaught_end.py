# exceptions: uncaught
# actions: next next
def check(v):
    if v > 1:
        raise ValueError(v)


check(1)  # BP
check(2)
