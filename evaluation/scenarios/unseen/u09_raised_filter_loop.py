# exceptions: raised
# actions: continue continue continue
out = []
for text in ["1", "x", "2"]:
    try:
        out.append(int(text))
    except ValueError:
        out.append(None)
print(out)  # BP
