class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Vec({self.x}, {self.y})"


def vec_sum(pairs):
    total = Vec(0, 0)
    for x, y in pairs:
        total = total + Vec(x, y)
    return total, total == Vec(0, 0)
