def newton_sqrt(value, steps):
    guess = value / 2 or 1.0
    for _ in range(steps):
        guess = (guess + value / guess) / 2
    return round(guess, 6)
