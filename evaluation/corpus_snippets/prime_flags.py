def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def prime_flags(xs):
    result = []
    for x in xs:
        result.append(is_prime(x))
    return result
