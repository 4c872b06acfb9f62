def chunks(xs, size):
    for i in range(0, len(xs), size):
        yield xs[i:i + size]


def chunk_sums(xs, size):
    return [sum(c) for c in chunks(xs, size)]
