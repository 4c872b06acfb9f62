class Countdown:
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        n = self.start
        while n > 0:
            yield n
            n -= 1


def countdown_pairs(n):
    return [(a, b) for a in Countdown(n) for b in Countdown(a) if a != b]
