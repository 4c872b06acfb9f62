def anagram_groups(words):
    groups = {}
    for w in words:
        key = "".join(sorted(w))
        groups.setdefault(key, []).append(w)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)
