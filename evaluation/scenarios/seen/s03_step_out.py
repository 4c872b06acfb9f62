# actions: stepOut next next
def scale(items, k):
    out = []  # BP
    for item in items:
        out.append(item * k)
    return out


doubled = scale([1, 2, 3], 2)
count = len(doubled)
