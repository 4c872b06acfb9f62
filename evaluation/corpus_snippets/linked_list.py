class LinkedList:
    def __init__(self):
        self.head = None
        self.size = 0

    def push(self, value):
        self.head = (value, self.head)
        self.size += 1

    def __iter__(self):
        node = self.head
        while node is not None:
            value, node = node
            yield value

    def __len__(self):
        return self.size


def linked_roundtrip(xs):
    chain = LinkedList()
    for x in xs:
        chain.push(x)
    return list(chain), len(chain)
