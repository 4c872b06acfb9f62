# actions: stepIn next next next next next next next
class Tag:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        return False


with Tag("t") as name:  # BP
    size = len(name)
print(size)
