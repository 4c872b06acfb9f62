"""Where a document binds names, and which function a line belongs to, read from its syntax tree.

An inlay hint goes after each statement that binds or changes a name: assignments, augmented and
annotated assignments, and for-loop targets. A subscript or attribute target (``result[j] = x``,
``self.n = 1``) changes the object its base name holds, so the base name is shown.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Site:
    """A statement that binds names.

    ``line`` is where the statement starts (a debugger stops there before running it);
    ``end_line`` where it ends (its hint goes at the end of that line). For a for loop, ``body``
    is the loop body's line span: the target was not bound again when the next stop of the frame
    lies outside the loop (the loop ended), only when it lands in the loop (a predicted run may
    also stop at the header again).
    """

    line: int
    end_line: int
    names: tuple[str, ...]
    body: tuple[int, int] | None = None


@dataclass(frozen=True)
class Function:
    """A function definition's name and line span (1-based, inclusive)."""

    name: str
    start: int
    end: int

    def contains(self, line: int) -> bool:
        return self.start <= line <= self.end


def assignment_sites(tree: ast.Module) -> list[Site]:
    """Every binding statement of ``tree`` that names at least one variable, by line."""
    sites = []
    for node in ast.walk(tree):
        site = _site(node)
        if site is not None and site.names:
            sites.append(site)
    return sorted(sites, key=lambda site: site.line)


def functions(tree: ast.Module) -> list[Function]:
    """Every function definition, outer ones before the functions nested in them."""
    found = [
        Function(node.name, node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return sorted(found, key=lambda function: (function.start, -function.end))


def innermost(candidates: list[Function] | tuple[Function, ...], line: int) -> Function | None:
    """The innermost function whose span holds ``line`` (None at module level)."""
    holding = [function for function in candidates if function.contains(line)]
    return min(holding, key=lambda function: function.end - function.start, default=None)


def _site(node: ast.AST) -> Site | None:
    end = getattr(node, "end_lineno", None)
    if isinstance(node, ast.Assign):
        names = [name for target in node.targets for name in _names(target)]
    elif isinstance(node, ast.AugAssign) or (
        isinstance(node, ast.AnnAssign) and node.value is not None
    ):
        names = list(_names(node.target))
    elif isinstance(node, ast.For | ast.AsyncFor):
        header_end = node.iter.end_lineno or node.lineno
        body = (node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
        return Site(node.lineno, header_end, _unique(_names(node.target)), body)
    else:
        return None
    return Site(node.lineno, end or node.lineno, _unique(names))


def _names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _names(element)
    elif isinstance(target, ast.Starred | ast.Subscript | ast.Attribute):
        yield from _names(target.value)


def _unique(names: Iterator[str] | list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
