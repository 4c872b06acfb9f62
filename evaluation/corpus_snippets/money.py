class Money:
    rate = 100

    def __init__(self, cents):
        self.cents = cents

    @classmethod
    def from_units(cls, units):
        return cls(units * cls.rate)

    @staticmethod
    def format_cents(cents):
        return f"{cents // 100}.{cents % 100:02d}"

    def __str__(self):
        return "$" + Money.format_cents(self.cents)


def total_money(units_list):
    total = 0
    for units in units_list:
        total += Money.from_units(units).cents
    return str(Money(total + 7))
