class Ratio:
    def __init__(self, num, den):
        if den == 0:
            raise ZeroDivisionError("zero denominator")
        g = Ratio.common(abs(num), abs(den))
        self.num = num // g
        self.den = den // g

    @staticmethod
    def common(a, b):
        while b:
            a, b = b, a % b
        return a or 1

    def __add__(self, other):
        return Ratio(self.num * other.den + other.num * self.den, self.den * other.den)

    def __lt__(self, other):
        return self.num * other.den < other.num * self.den

    def __eq__(self, other):
        return self.num * other.den == other.num * self.den

    def __repr__(self):
        return f"{self.num}/{self.den}"


def ratio_report(pairs):
    items = [Ratio(a, b) for a, b in pairs]
    total = items[0]
    for item in items[1:]:
        total = total + item
    return sorted(items), total, max(items)
