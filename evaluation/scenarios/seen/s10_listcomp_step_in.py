# actions: stepIn stepIn stepIn next next
def cube(v):
    return v ** 3


nums = [1, 2]  # BP
cubes = [cube(v) for v in nums]
print(cubes)
