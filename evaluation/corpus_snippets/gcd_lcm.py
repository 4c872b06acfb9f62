def gcd_pair(a, b):
    while b:
        a, b = b, a % b
    return a


def lcm_all(xs):
    result = 1
    for x in xs:
        result = result * x // gcd_pair(result, x)
    return result
