def guarded_pop(stack, log):
    try:
        return stack.pop()
    finally:
        log.append(len(stack))


def drain(xs):
    stack = list(xs)
    log = []
    values = []
    while stack:
        values.append(guarded_pop(stack, log))
    return values, log
