def queens(n):
    solutions = []

    def place(row, cols):
        if row == n:
            solutions.append(list(cols))
            return
        for col in range(n):
            if all(col != c and abs(col - c) != row - r for r, c in enumerate(cols)):
                cols.append(col)
                place(row + 1, cols)
                cols.pop()

    place(0, [])
    return len(solutions), solutions[:1]
