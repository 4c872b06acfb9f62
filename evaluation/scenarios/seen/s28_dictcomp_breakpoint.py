# actions: continue continue continue continue
keys = ["x", "y"]
table = {k: k.upper() for k in keys}  # BP
print(table)
