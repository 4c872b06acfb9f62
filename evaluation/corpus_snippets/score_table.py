def score_table(rows):
    lines = []
    for name, score, total in rows:
        ratio = score / total
        lines.append(f"{name:<6}{score:>4}/{total:<4}{ratio:6.1%}")
    return lines
