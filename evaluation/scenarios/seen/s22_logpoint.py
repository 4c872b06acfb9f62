# actions: continue continue
items = ["a", "b", "c"]
for pos, item in enumerate(items):
    text = item * pos  # BP log at {pos}
print("end")  # BP
