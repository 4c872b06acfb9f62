# actions: stepIn next next next next next next
class Quiet:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return True


with Quiet():  # BP
    bad = int("q")
print("after")
