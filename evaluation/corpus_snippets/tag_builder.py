class Tag:
    def __init__(self, parts, name):
        self.parts = parts
        self.name = name

    def __enter__(self):
        self.parts.append(f"<{self.name}>")
        return self.parts

    def __exit__(self, exc_type, exc, tb):
        self.parts.append(f"</{self.name}>")


def render_tags(items):
    parts = []
    with Tag(parts, "ul"):
        for item in items:
            with Tag(parts, "li") as inner:
                inner.append(str(item))
    return "".join(parts)
