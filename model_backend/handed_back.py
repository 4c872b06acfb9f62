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

:func:`appends` reads the lines that only append a variable's value or a literal to a list
(``out.append(total)``): after one, the list's text is its old text with the value's added.

:func:`copies` reads the lines that only copy: ``x = y``, ``a, b = b, a``, ``total = 0``,
``x = y = []`` (alone on their line, on that line alone). Such a line calls nothing, so a step
from it lands on the frame's next line with each target showing the value its source had (a
variable's, as the state before showed it) or the literal's text, as the tracer writes it.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from neural_debugger.model_backend.bindings import bindings
from neural_debugger.protocol.source_map import yields
from neural_debugger.tracer.values import CUT_MARKER, MAX_VALUE_CHARS, render_value

_LISTS = frozenset({"list", "UserList"})  # bases whose subclasses' texts read as lists


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
    target: ast.expr | None
    if isinstance(statement, ast.Return):
        value, target = statement.value, None
    elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        value, target = statement.value, statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        value, target = statement.value, statement.target
    else:
        return None
    if target is not None and not (isinstance(target, ast.Name) and not _dunder(target.id)):
        return None  # an attribute, an item or a tuple; or a dunder, which the tracer hides
    if not isinstance(value, ast.Call):
        return None
    callee = _called_name(value.func)
    same = sum(
        1
        for node in ast.walk(value)
        if isinstance(node, ast.Call) and _called_name(node.func) == callee
    )
    if callee is None or same != 1:
        return None
    return Receiver(callee, target.id if isinstance(target, ast.Name) else None)


def receivers(tree: ast.Module) -> dict[int, Receiver]:
    """The lines of ``tree`` whose statement hands a call's return value on unchanged."""
    found: dict[int, Receiver] = {}
    for node in alone_on_their_lines(tree):
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
    for node in alone_on_their_lines(tree):
        pairs = _assigned_pairs(node)
        names = [target.id for target, _ in pairs if isinstance(target, ast.Name)]
        if not pairs or len(names) != len(pairs) or len(set(names)) != len(names):
            continue  # a target that is no plain name (or twice): something else may run
        sources = {name: _source(value) for name, (_, value) in zip(names, pairs, strict=True)}
        if None in sources.values():
            continue  # a value that may run code (an operator, a call, a hash): not a copy
        kept = {n: c for n, c in sources.items() if c is not None and not _dunder(n)}
        if kept:
            found[node.lineno] = kept
    return found


@dataclass(frozen=True)
class Appended:
    """A line that appends one value to a list: ``items.append(x)``."""

    target: str  # the list's variable
    source: Copied  # the value appended: a variable's, or a literal's text


def appends(tree: ast.Module) -> dict[int, Appended]:
    """The lines of ``tree`` that only append a variable's value or a literal to a list held
    by a variable (``items.append(x)``, ``out.append(0)``, alone on their line). After such a
    line the list's text is its old one with the value's text added at the end, where the
    variable holds a builtin list: the grammar asks that its text read as one (``[...]``),
    and takes none of these lines from code that defines an ``append`` method or a class
    deriving from a list, whose text and ``append`` may be their own."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "append":
            return {}
        if isinstance(node, ast.ClassDef) and any(
            isinstance(base, ast.Name | ast.Attribute) and _called_name(base) in _LISTS
            for base in node.bases
        ):
            return {}
    found: dict[int, Appended] = {}
    for node in alone_on_their_lines(tree):
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        method = call.func
        if not isinstance(method, ast.Attribute) or method.attr != "append":
            continue
        if not isinstance(method.value, ast.Name) or len(call.args) != 1 or call.keywords:
            continue
        target = method.value.id
        source = _source(call.args[0])
        if source is None or source.variable == target or _dunder(target):
            continue
        found[node.lineno] = Appended(target, source)
    return found


def appended_text(items: str, value: str) -> str | None:
    """The text of the list written ``items`` once ``value`` (a value's text) is appended;
    None where ``items`` is not a whole list's text or the result would be cut."""
    if not (items.startswith("[") and items.endswith("]")) or items.endswith(CUT_MARKER):
        return None
    if value.endswith(CUT_MARKER):
        return None
    text = f"[{value}]" if items == "[]" else f"{items[:-1]}, {value}]"
    return text if len(text) <= MAX_VALUE_CHARS else None


def returns(tree: ast.Module) -> dict[int, Copied]:
    """The lines of ``tree`` that only return a variable's value or a literal (``return
    total``, ``return -1``, alone on their line): a step from one shows the frame's return
    on that line, whose value is the variable's, as the state before showed it, or the
    literal's text. Left out: a function that yields (its return is the generator's end) or
    is ``async``, and a ``return`` inside a ``with`` block or a ``try`` with a ``finally``,
    where ``__exit__`` or the ``finally`` block runs before the return."""
    guarded = guarded_nodes(tree)
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    alone = {id(node) for node in alone_on_their_lines(tree)}
    found: dict[int, Copied] = {}
    for function in functions:
        if yields(function):
            continue
        for node in _own_statements(function):
            if not isinstance(node, ast.Return) or id(node) not in alone or id(node) in guarded:
                continue
            value = node.value
            copied = _source(value) if value is not None else Copied(text=render_value(None))
            if copied is not None:
                found[node.lineno] = copied
    return found


def guarded_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes a ``with`` block or a ``try`` with a ``finally`` wraps: a
    ``return`` there runs ``__exit__`` or the ``finally`` block before the frame returns."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith):
            parts = [node.body]
        elif isinstance(node, ast.Try | ast.TryStar) and node.finalbody:
            parts = [node.body, node.orelse, *(handler.body for handler in node.handlers)]
        else:
            continue
        guarded |= {id(n) for part in parts for statement in part for n in ast.walk(statement)}
    return guarded


def _own_statements(function: ast.FunctionDef) -> list[ast.stmt]:
    """The statements of ``function``'s own frame (not those of functions or classes in it)."""
    found: list[ast.stmt] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.stmt):
            found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def made_generators(tree: ast.Module) -> dict[int, dict[str, Copied]]:
    """The lines that only make a generator (``numbers = count_up(n)``, alone on their line):
    a call, by name, of a generator function the module defines with one undecorated
    top-level ``def`` that nothing else binds, given variables and literals only. The call
    runs none of the function's code, and its target then holds ``<generator object NAME>``,
    as the tracer writes it."""
    generators = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and not node.decorator_list
        and yields(node)
        and bindings(tree, node.name) == 1
    }
    found: dict[int, dict[str, Copied]] = {}
    for node in alone_on_their_lines(tree):
        pairs = _assigned_pairs(node)
        if len(pairs) != 1 or not isinstance(pairs[0][0], ast.Name):
            continue
        target, call = pairs[0][0].id, pairs[0][1]
        if _dunder(target) or not isinstance(call, ast.Call):
            continue
        made = call.func.id if isinstance(call.func, ast.Name) else None
        given = [*call.args, *(keyword.value for keyword in call.keywords)]
        plain = all(not isinstance(a, ast.Starred) and _source(a) is not None for a in given)
        if made in generators and plain and all(k.arg for k in call.keywords):
            found[node.lineno] = {target: Copied(text=f"<generator object {made}>")}
    return found


def _assigned_pairs(node: ast.stmt) -> list[tuple[ast.expr, ast.expr]]:
    """Each target of an assignment with the expression it takes (``a, b = b, a`` pairs
    element by element); none where a target unpacks anything but a display of its size."""
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(node.target, node.value)]
    if not isinstance(node, ast.Assign):
        return []
    pairs: list[tuple[ast.expr, ast.expr]] = []
    for target in node.targets:
        if not isinstance(target, ast.Tuple | ast.List):
            pairs.append((target, node.value))
        elif isinstance(node.value, ast.Tuple | ast.List) and len(node.value.elts) == len(
            target.elts
        ):
            pairs += zip(target.elts, node.value.elts, strict=True)
        else:
            return []
    return pairs


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


def alone_on_their_lines(tree: ast.Module) -> list[ast.stmt]:
    """The statements on one line that no other statement starts on (a statement over
    several lines, or sharing one, has line events, or runs code, its line does not say)."""
    starts = Counter(node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and node.end_lineno == node.lineno
        and starts[node.lineno] == 1
    ]
