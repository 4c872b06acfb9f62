class Section:
    def __init__(self, name, trail):
        self.name = name
        self.trail = trail

    def __enter__(self):
        self.trail.append("+" + self.name)
        return self.name

    def __exit__(self, exc_type, exc, tb):
        self.trail.append("-" + self.name)
        return False


def sections(names, fail_at):
    trail = []
    for name in names:
        try:
            with Section("outer", trail), Section(name, trail) as label:
                if label == fail_at:
                    raise ValueError(label)
        except ValueError as err:
            trail.append("caught " + str(err))
    return trail
