# actions: continue continue continue continue
total = 0
for i in range(3):
    total += i  # BP
print(total)
