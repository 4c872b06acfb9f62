# actions: next next next next next
def guarded(x):
    try:
        return x * 2  # BP
    finally:
        x = 0


out = guarded(3)
print(out)
