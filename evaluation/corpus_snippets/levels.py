DEBUG_LEVEL = 0


def set_level(n):
    global DEBUG_LEVEL
    old = DEBUG_LEVEL
    DEBUG_LEVEL = n
    return old


def levels_run(values):
    history = []
    for v in values:
        history.append(set_level(v))
    return history, DEBUG_LEVEL
