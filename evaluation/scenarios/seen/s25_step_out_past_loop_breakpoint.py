# actions: stepOut stepOut next
def walk(n):
    seen = []
    for i in range(n):
        seen.append(i)  # BP
    return seen


walk(3)
