def make_counter(step):
    count = 0

    def increment():
        nonlocal count
        count += step
        return count

    return increment


def counter_run(step, times):
    counter = make_counter(step)
    values = []
    for _ in range(times):
        values.append(counter())
    return values
