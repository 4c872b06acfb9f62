def count_paths(graph, node, target):
    if node == target:
        return 1
    total = 0
    for nxt in graph.get(node, []):
        total += count_paths(graph, nxt, target)
    return total
