def averager():
    total = 0
    count = 0
    average = None
    while True:
        value = yield average
        total += value
        count += 1
        average = total / count


def running_averages(xs):
    gen = averager()
    next(gen)
    return [round(gen.send(x), 2) for x in xs]
