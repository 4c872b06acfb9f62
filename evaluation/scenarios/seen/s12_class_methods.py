# actions: stepIn next next stepIn next next next
class Counter:
    def __init__(self, start):
        self.value = start

    def bump(self, by):
        self.value += by
        return self.value


c = Counter(3)  # BP
c.bump(2)
print(c.value)
