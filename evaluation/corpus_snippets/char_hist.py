def char_hist(text):
    return {c: text.count(c) for c in sorted(set(text)) if c != " "}
