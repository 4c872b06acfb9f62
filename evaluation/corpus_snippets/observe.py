TOTAL_SEEN = 0


def observe(xs):
    global TOTAL_SEEN
    for x in xs:
        TOTAL_SEEN += x
    return TOTAL_SEEN
