def merge_counts(first, second):
    merged = dict(first)
    for key, value in second.items():
        merged[key] = merged.get(key, 0) + value
    buckets = {}
    for key, value in sorted(merged.items()):
        buckets.setdefault(value % 3, []).append(key)
    return merged, buckets
