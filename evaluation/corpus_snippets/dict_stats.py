def dict_stats(scores):
    total = 0
    for value in scores.values():
        total += value
    best = None
    for key in scores:
        if best is None or scores[key] > scores[best]:
            best = key
    return total, best, list(scores.keys())[:2]
