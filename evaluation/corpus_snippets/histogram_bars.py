def histogram_bars(counts):
    width = max(counts)
    bars = []
    for i, c in enumerate(counts):
        bars.append("{:>2} {}{}".format(i, "#" * c, "." * (width - c)))
    return bars
