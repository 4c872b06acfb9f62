def triples(n):
    return [
        (a, b, c)
        for a in range(1, n)
        for b in range(a, n)
        for c in range(b, n)
        if a * a + b * b == c * c
    ]
