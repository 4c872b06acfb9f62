def normalize_codes(codes):
    result = []
    for code in codes:
        code = code.strip().upper().replace("-", "")
        if code.startswith("X"):
            continue
        result.append(code.zfill(6))
    return result
