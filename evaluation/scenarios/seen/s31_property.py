# actions: stepIn next next next
class Box:
    def __init__(self, w):
        self.w = w

    @property
    def area(self):
        return self.w * self.w


b = Box(3)
a = b.area  # BP
print(a)
