def oldest(people):
    name, age = max(people, key=lambda p: p[1])
    youngest = min(people, key=lambda p: (p[1], p[0]))
    return name, age, youngest[0]
