# actions: continue continue continue
words = ["pear", "fig", "apple"]
ordered = sorted(words, key=lambda w: len(w))  # BP
print(ordered)
