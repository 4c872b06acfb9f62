def rank_players(records):
    ordered = sorted(records, key=lambda r: (-r[1], r[0]))
    return [name for name, _ in ordered][:3]
