"""Values a line hands on unchanged: a call's return value, a variable's value, a literal.

After ``y = f(x)`` the caller's next line shows ``y`` with the very value ``f`` returned, and
after ``return f(x)`` the caller returns that value: the history already holds it, in the
callee's return state. A model stepping through a call sees the return and still writes the
old ``y`` often enough that the grammar is worth telling.

:func:`receivers` reads, from the code alone, the lines where this holds: a statement alone on
its line (a statement over several lines has line events between the call's return and the
store) that is ``NAME = CALL``, ``NAME: T = CALL`` or ``return CALL``, whose call is made by a
name (``f(...)``, ``obj.f(...)``) that no other call in the statement uses. Then the last
return event of a frame one level down, named like the call, before the caller's next event,
is that call's own: nothing runs between the return and the store (or the caller's return).
Whether a return is that frame's is the caller's to check (:func:`.flow.expect`): the frame
must have been opened on a ``def`` line of a function of that name, with the call seen in the
history.

:func:`copies` reads the lines that only copy: ``x = y``, ``a, b = b, a``, ``total = 0``,
``x = y = []`` (alone on their line, on that line alone). Such a line calls nothing, so a step
from it lands on the frame's next line with each target showing the value its source had (a
variable's, as the state before showed it) or the literal's text, as the tracer writes it.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from neural_debugger.tracer.values import render_value


@dataclass(frozen=True)
class Receiver:
    """A line that hands a call's return value on unchanged."""

    callee: str  # the name the call is made by: ``f`` of ``f(x)`` and of ``obj.f(x)``
    target: str | None  # the variable bound to the value; None: the statement returns it


def _called_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _receiver(statement: ast.stmt) -> Receiver | None:
    """What ``statement`` does with its call's value, if it hands it on unchanged."""
    target: str | None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        value, first = statement.value, statement.targets[0]
        target = first.id if isinstance(first, ast.Name) else None
        if target is None:
            return None
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        value = statement.value
        target = statement.target.id if isinstance(statement.target, ast.Name) else None
        if target is None:
            return None
    elif isinstance(statement, ast.Return) and statement.value is not None:
        value, target = statement.value, None
    else:
        return None
    if target is not None and _dunder(target):
        return None  # the tracer hides dunder names
    if not isinstance(value, ast.Call):
        return None
    callee = _called_name(value.func)
    if callee is None:
        return None
    same = sum(
        1
        for node in ast.walk(value)
        if isinstance(node, ast.Call) and _called_name(node.func) == callee
    )
    return Receiver(callee, target) if same == 1 else None


def receivers(tree: ast.Module) -> dict[int, Receiver]:
    """The lines of ``tree`` whose statement hands a call's return value on unchanged."""
    found: dict[int, Receiver] = {}
    for node in _alone_on_their_lines(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.Return):
            receiver = _receiver(node)
            if receiver is not None:
                found[node.lineno] = receiver
    return found


@dataclass(frozen=True)
class Copied:
    """Where a variable's new value comes from: another variable's value, or a literal."""

    variable: str | None = None  # the variable whose value it takes
    text: str | None = None  # the literal's text, as the tracer writes the value


def copies(tree: ast.Module) -> dict[int, dict[str, Copied]]:
    """The lines of ``tree`` that only copy values into variables: each target's source."""
    found: dict[int, dict[str, Copied]] = {}
    for node in _alone_on_their_lines(tree):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Tuple | ast.List):
                    if not isinstance(node.value, ast.Tuple | ast.List) or len(
                        node.value.elts
                    ) != len(target.elts):
                        pairs = []
                        break
                    pairs += zip(target.elts, node.value.elts, strict=True)
                else:
                    pairs.append((target, node.value))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs.append((node.target, node.value))
        names = [target.id for target, _ in pairs if isinstance(target, ast.Name)]
        if not pairs or len(names) != len(pairs) or len(set(names)) != len(names):
            continue  # a target that is no plain name (or twice): something else may run
        sources = [_source(value) for _, value in pairs]
        if any(source is None for source in sources):
            continue  # a value that may run code (an operator, a call, a hash): not a copy
        copied = dict(zip(names, sources, strict=True))
        kept = {n: c for n, c in copied.items() if c is not None and not _dunder(n)}
        if kept:
            found[node.lineno] = kept
    return found


def _source(value: ast.expr) -> Copied | None:
    """Where a value comes from, if evaluating it runs no code: a variable, or a literal
    (no set: its order is the hash's, which may differ between runs)."""
    if isinstance(value, ast.Name):
        return Copied(variable=value.id)
    if any(isinstance(node, ast.Set | ast.Name) for node in ast.walk(value)):
        return None
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return Copied(text=render_value(literal))


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _alone_on_their_lines(tree: ast.Module) -> list[ast.stmt]:
    """The statements on one line that no other statement starts on."""
    starts = Counter(node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and node.end_lineno == node.lineno
        and starts[node.lineno] == 1
    ]
