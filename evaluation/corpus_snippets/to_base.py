def to_base(n, base):
    digits = "0123456789abcdef"
    if n == 0:
        return "0"
    out = []
    while n > 0:
        n, r = divmod(n, base)
        out.append(digits[r])
    return "".join(reversed(out))
