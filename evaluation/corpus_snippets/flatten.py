def flatten(rows):
    return [x for row in rows for x in row if x is not None]
