class Shape:
    def __init__(self, name):
        self.name = name

    def area(self):
        return 0

    def describe(self):
        return f"{self.name}: {self.area()}"


class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self.w = w
        self.h = h

    def area(self):
        return self.w * self.h


class Square(Rect):
    def __init__(self, side):
        super().__init__(side, side)
        self.name = "square"


def describe_shapes(sizes):
    shapes = [Square(s) if s % 2 else Rect(s, s + 1) for s in sizes]
    return [shape.describe() for shape in shapes]
