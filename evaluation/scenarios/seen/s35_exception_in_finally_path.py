# actions: next next next next next next
def run():
    try:
        x = 1 / 0  # BP
    finally:
        cleanup = True
    return x


try:
    run()
except ZeroDivisionError:
    done = True
