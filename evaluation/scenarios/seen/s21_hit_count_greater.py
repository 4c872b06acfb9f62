# actions: continue continue continue
for i in range(5):
    square = i * i  # BP hit >= 3
print("done")
