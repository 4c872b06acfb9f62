class TrafficLight:
    ORDER = ("green", "yellow", "red")

    def __init__(self):
        self.index = 0
        self.ticks = 0

    @property
    def color(self):
        return self.ORDER[self.index]

    def advance(self):
        self.index = (self.index + 1) % len(self.ORDER)
        self.ticks += 1

    def run(self, steps):
        seen = []
        for _ in range(steps):
            seen.append(self.color)
            self.advance()
        return seen


def light_cycle(steps):
    light = TrafficLight()
    colors = light.run(steps)
    return colors[-3:], light.ticks
