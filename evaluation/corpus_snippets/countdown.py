def countdown(n):
    while n > 0:
        yield n
        n -= 1


def countdown_list(n):
    return list(countdown(n))
