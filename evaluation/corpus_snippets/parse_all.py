def parse_int(text):
    if not text.strip().lstrip("-").isdigit():
        raise ValueError("bad number: " + text)
    return int(text)


def parse_all(items):
    good = []
    bad = 0
    for item in items:
        try:
            good.append(parse_int(item))
        except ValueError:
            bad += 1
    return good, bad
