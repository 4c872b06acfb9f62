def make_adder(k):
    def add(x):
        return x + k

    return add


def apply_adders(ks, x):
    adders = [make_adder(k) for k in ks]
    return [f(x) for f in adders]
