class ValidationError(Exception):
    pass


def check_range(x, lo, hi):
    if not lo <= x <= hi:
        raise ValidationError(f"{x} not in [{lo}, {hi}]")
    return x


def validate_row(row):
    return [check_range(x, 0, 9) for x in row]


def validate_table(rows):
    good = []
    errors = []
    for row in rows:
        try:
            good.append(validate_row(row))
        except ValidationError as exc:
            errors.append(str(exc))
    return len(good), errors
