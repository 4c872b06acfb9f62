# exceptions: userUnhandled
# actions: continue continue
def fail():
    raise RuntimeError("boom")


def call():
    try:
        fail()
    except RuntimeError:
        return "handled"


x = 0  # BP
print(call())
