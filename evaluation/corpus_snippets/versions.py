class Version:
    def __init__(self, text):
        self.parts = tuple(int(p) for p in text.split("."))

    def __lt__(self, other):
        return self.parts < other.parts

    def __repr__(self):
        return "v" + ".".join(str(p) for p in self.parts)


def sort_versions(texts):
    return sorted(Version(t) for t in texts)
