# actions: stepOut next stepIn next stepOut
def pairs(words):
    for word in words:
        yield word, len(word)  # BP


lengths = {}
for word, size in pairs(["ab", "cde"]):
    lengths[word] = size
print(lengths)
