# actions: stepOut next next
def risky(v):
    if v < 0:  # BP
        raise ValueError("negative")
    return v


try:
    risky(-1)
except ValueError:
    msg = "caught"
print(msg)
