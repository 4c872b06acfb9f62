MISSING_KEYS = []


def checked_get(d, key):
    try:
        return d[key]
    except KeyError:
        MISSING_KEYS.append(key)
        raise


def lookup_many(d, keys):
    out = []
    for k in keys:
        try:
            out.append(checked_get(d, k))
        except KeyError:
            out.append(None)
    return out, len(MISSING_KEYS)
