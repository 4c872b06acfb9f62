# exceptions: raised
# actions: continue next next
def lookup(table, key):
    try:
        return table[key]
    except KeyError:
        return 0


data = {"a": 1}  # BP
first = lookup(data, "a")
second = lookup(data, "b")
print(first, second)
