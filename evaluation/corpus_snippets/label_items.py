def id_maker(start):
    current = start
    while True:
        yield current
        current += 1


def label_items(words, start):
    ids = id_maker(start)
    first = next(ids)
    labels = [str(first) + ":head"]
    for w in words:
        labels.append(str(next(ids)) + ":" + w)
    return labels
