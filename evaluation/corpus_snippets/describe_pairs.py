def describe_pairs(d):
    parts = []
    for key in sorted(d):
        parts.append("%s=%d" % (key, d[key]))
    return "{} items: {}".format(len(parts), ", ".join(parts))
