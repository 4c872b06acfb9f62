"""An example for the neural debugger: running totals of a list."""


def running_total(xs):
    total = 0
    out = []
    for x in xs:
        total += x
        out.append(total)
    return out
