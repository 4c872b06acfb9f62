def sort_words(words):
    by_length = sorted(words, key=lambda w: (len(w), w))
    by_last = sorted(words, key=lambda w: w[-1], reverse=True)
    return by_length, by_last[0]
