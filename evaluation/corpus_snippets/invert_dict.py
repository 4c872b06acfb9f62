def invert_dict(d):
    inverted = {value: key for key, value in d.items()}
    return dict(sorted(inverted.items()))
