# actions: stepIn stepIn stepIn
def inc(v):
    return v + 1  # BP


r = inc(1)
s = inc(r)
