# actions: next next next next next
class Stack:
    def __init__(self):
        self.items = []

    def push(self, v):
        self.items.append(v)  # BP
        return len(self.items)


s = Stack()
s.push(1)
s.push(2)
print(s.items)
