class Inventory:
    def __init__(self):
        self.stock = {}

    def add(self, name, qty):
        self.stock[name] = self.stock.get(name, 0) + qty

    def take(self, name, qty):
        if self.stock[name] < qty:
            raise ValueError("not enough " + name)
        self.stock[name] -= qty
        return self.stock[name]


def restock(orders):
    inv = Inventory()
    for name, qty in orders:
        if qty > 0:
            inv.add(name, qty)
        else:
            try:
                inv.take(name, -qty)
            except (KeyError, ValueError):
                inv.add("missed", 1)
    return sorted(inv.stock.items())
