def mod_classes(xs, k):
    residues = {x % k for x in xs}
    return sorted(residues), len(residues) == k
