# actions: stepIn stepIn stepIn stepIn stepIn stepIn stepIn next stepIn stepIn next stepIn stepIn
class Shape:
    def __init__(self, name):
        self.name = name

    def describe(self):
        return self.name.upper()

    @classmethod
    def plain(cls):
        return cls("plain")


class Rect(Shape):
    def __init__(self, w):
        super().__init__("rect")
        self.w = w


r = Rect(2)  # BP
label = r.describe()
other = Rect.plain()
print(label, other.name)
