def swap_pairs(pairs):
    swapped = [(b, a) for a, b in pairs]
    firsts, seconds = zip(*swapped) if swapped else ((), ())
    return list(firsts), sum(seconds)
