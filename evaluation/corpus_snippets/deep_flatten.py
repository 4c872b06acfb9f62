def deep_flatten(value):
    if not isinstance(value, list):
        return [value]
    result = []
    for item in value:
        result.extend(deep_flatten(item))
    return result
