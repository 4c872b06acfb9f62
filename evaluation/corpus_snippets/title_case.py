def title_case(text):
    small = ("a", "of", "the", "and", "or")
    words = text.split()
    return " ".join(w if w in small and i else w.capitalize() for i, w in enumerate(words))
