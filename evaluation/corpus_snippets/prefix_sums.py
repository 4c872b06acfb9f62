def prefix_sums(xs):
    result = [0]
    for x in xs:
        result.append(result[-1] + x)
    return result
