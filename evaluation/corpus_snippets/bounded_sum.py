import math


def bounded_sum(xs, cap):
    total = 0.0
    for x in xs:
        total += math.sqrt(abs(x))
        if total > cap:
            return cap
    return round(total, 4)
