def bubble_sort(xs):
    xs = list(xs)
    n = len(xs)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
                swapped = True
        if not swapped:
            break
    return xs
