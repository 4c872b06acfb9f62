class TreeNode:
    def __init__(self, value):
        self.value = value
        self.left = None
        self.right = None


def bst_insert(node, value):
    if node is None:
        return TreeNode(value)
    if value < node.value:
        node.left = bst_insert(node.left, value)
    else:
        node.right = bst_insert(node.right, value)
    return node


def bst_inorder(node):
    if node is None:
        return []
    return bst_inorder(node.left) + [node.value] + bst_inorder(node.right)


def bst_sort(xs):
    root = None
    for x in xs:
        root = bst_insert(root, x)
    return bst_inorder(root)
