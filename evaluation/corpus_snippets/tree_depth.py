def tree_depth(node):
    if node is None:
        return 0
    value, left, right = node
    return 1 + max(tree_depth(left), tree_depth(right))
