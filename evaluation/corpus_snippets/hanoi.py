def hanoi(n, source, target, spare, moves):
    if n == 0:
        return
    hanoi(n - 1, source, spare, target, moves)
    moves.append((source, target))
    hanoi(n - 1, spare, target, source, moves)


def hanoi_moves(n):
    moves = []
    hanoi(n, "A", "C", "B", moves)
    return len(moves), moves[:3]
