# actions: stepIn stepIn stepIn stepIn next next
def weight(v):
    return v * 10


vals = [1, 2]  # BP
total = sum(weight(v) for v in vals)
print(total)
