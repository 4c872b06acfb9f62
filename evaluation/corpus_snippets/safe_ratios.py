def safe_ratios(pairs):
    result = []
    for a, b in pairs:
        try:
            result.append(round(a / b, 3))
        except ZeroDivisionError:
            result.append(None)
    return result
