# actions: next next stepIn next next next
def odd(v):
    return v % 2 == 1


data = [1, 2, 3]  # BP
odds = {v for v in data if odd(v)}
print(sorted(odds))
