def determinant(m):
    if len(m) == 1:
        return m[0][0]
    total = 0
    for col in range(len(m)):
        minor = [row[:col] + row[col + 1:] for row in m[1:]]
        sign = -1 if col % 2 else 1
        total += sign * m[0][col] * determinant(minor)
    return total
