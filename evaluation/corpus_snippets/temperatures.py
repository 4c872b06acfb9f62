class Temperature:
    def __init__(self, celsius):
        self._celsius = celsius

    @property
    def fahrenheit(self):
        return self._celsius * 9 / 5 + 32

    @fahrenheit.setter
    def fahrenheit(self, value):
        self._celsius = (value - 32) * 5 / 9


def convert_temps(values):
    out = []
    for v in values:
        t = Temperature(v)
        out.append(round(t.fahrenheit, 1))
    t.fahrenheit = 212
    out.append(round(t._celsius, 1))
    return out
