def repeat(times):
    def decorate(func):
        def wrapper(*args):
            results = []
            for _ in range(times):
                results.append(func(*args))
            return results

        return wrapper

    return decorate


BUMPS = [0]


@repeat(3)
def bump(k):
    BUMPS[0] += k
    return BUMPS[0]
