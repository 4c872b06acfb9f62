def walk_nested(items):
    for item in items:
        if isinstance(item, list):
            yield from walk_nested(item)
        else:
            yield item


def nested_total(items):
    return sum(walk_nested(items))
