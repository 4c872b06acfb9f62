def tree_sum(node):
    if node is None:
        return 0
    value, left, right = node
    return value + tree_sum(left) + tree_sum(right)
