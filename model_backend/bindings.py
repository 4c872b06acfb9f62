"""Where a code context binds a name, read from its syntax tree.

A value the code fixes for a name (a module's constant, an argument that names one, a
generator a line makes) holds only where every use of the name is that one binding's: no
other scope has a variable, parameter, import or definition of the same name.
"""

from __future__ import annotations

import ast


def bindings(tree: ast.Module, name: str) -> int:
    """How many places of the code bind ``name``, in any scope: assignment, loop and ``with``
    targets, ``del``, parameters, imports, ``except ... as``, ``global`` and ``nonlocal``
    declarations, definitions and match captures."""
    return sum(_counted(tree, name))


def bound_once(tree: ast.Module, name: str) -> bool:
    """Whether one plain target (``NAME = ...``) binds ``name`` and nothing else anywhere:
    every use of the name is that binding's."""
    targets, others = _counted(tree, name)
    return targets == 1 and others == 0


def _counted(tree: ast.Module, name: str) -> tuple[int, int]:
    """How many plain targets (``ast.Name`` stores and deletes) bind ``name``, and how many
    other places do."""
    targets = others = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            targets += node.id == name and not isinstance(node.ctx, ast.Load)
        else:
            others += _names_bound_by(node).count(name)
    return targets, others


def _names_bound_by(node: ast.AST) -> tuple[str, ...]:
    """The names ``node`` binds other than as an ``ast.Name`` target."""
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0],)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return (node.name,)
    if isinstance(node, ast.Global | ast.Nonlocal):
        return tuple(node.names)
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        return (node.name,)
    if isinstance(node, ast.MatchMapping) and node.rest:
        return (node.rest,)
    return ()
