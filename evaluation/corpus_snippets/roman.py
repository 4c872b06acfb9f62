def to_roman(n):
    table = [(50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for value, letters in table:
        while n >= value:
            out += letters
            n -= value
    return out
