def sum_evens(xs):
    result = 0
    for x in xs:
        if x % 2:
            continue
        result += x
    return result
