def parse_pairs(text):
    result = {}
    for part in text.split(";"):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError("missing = in " + part)
        result[key.strip()] = int(value.strip())
    return result
