# actions: next stepOut
values = [3, 1]
best = None  # BP
for v in values:
    if best is None or v < best:
        best = v
print(best)
