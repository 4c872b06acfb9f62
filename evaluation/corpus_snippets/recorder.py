class Recorder:
    def __init__(self, log, label):
        self.log = log
        self.label = label

    def __enter__(self):
        self.log.append("enter " + self.label)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit " + self.label)
        return False


def recorded_sum(xs):
    log = []
    with Recorder(log, "sum") as rec:
        total = sum(xs)
        log.append(rec.label + "=" + str(total))
    return log
