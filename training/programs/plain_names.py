"""Plain names for drills: ``def f(lst):`` as often as ``def summarize(scores):``.

Why: every drill family names its function and parameters from pools of descriptive words
(``clean(text)``, ``tally(counts)``), and the model learned the names with the values: with
the shipped weights, ``def copy_table(table): return table.copy()`` returns the dict it was
given, but the same function written ``def f(dictionary):`` returns ``'.'``. Real code, quick
scripts and exercises name things plainly too (``f``, ``s``, ``lst``, ``d``, ``nums``), so a
share of the drills is renamed that way, by the argument's type, and the model must read the
code and the values rather than the words.

Renaming is done on the syntax tree's positions (only names that are the function's own
variables: never an attribute, a keyword or text inside a string), and a renamed drill is
kept only if it still runs as its original did (the caller checks it again).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import random

from .base import TrainingProgram

SHARE = 0.3  # of the drills, renamed to plain names
FUNCTIONS = ("f", "g", "func", "fn", "solve", "helper", "compute", "operation", "main_logic")
PARAMETERS: dict[type, tuple[str, ...]] = {
    str: ("s", "st", "string", "txt", "text", "a", "x", "inp", "value", "strng"),
    list: ("lst", "arr", "array", "nums", "l", "a", "xs", "data", "elements", "li"),
    dict: ("d", "dct", "dic", "dictionary", "mapping", "data", "obj", "m"),
    set: ("s", "st", "a", "b", "values", "elements"),
    tuple: ("t", "tup", "a", "tpl", "values"),
    int: ("n", "x", "k", "num", "a", "i", "val"),
    float: ("x", "f", "val", "num", "y"),
    bytes: ("b", "data", "bs", "buf"),
    bool: ("flag", "b", "cond"),
}
OTHER = ("a", "b", "c", "x", "y", "z", "arg", "item")
_TAKEN = frozenset(dir(builtins)) | frozenset(keyword.kwlist)


def plainly_named(program: TrainingProgram, rng: random.Random) -> TrainingProgram | None:
    """``program`` (one function called by its entry) with plain names, or None where its
    shape is not one this renames safely (then it keeps its own)."""
    try:
        tree = ast.parse(program.source)
        call = ast.parse(program.entry or "", mode="eval").body
    except SyntaxError:
        return None
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(functions) != 1 or not isinstance(call, ast.Call) or call.keywords:
        return None
    function = functions[0]
    if not isinstance(call.func, ast.Name) or call.func.id != function.name:
        return None
    parameters = [a.arg for a in function.args.args]
    if function.args.vararg or function.args.kwarg or len(call.args) != len(parameters):
        return None
    if any(isinstance(n, ast.JoinedStr) for n in ast.walk(tree)):
        return None  # names inside f-strings have no reliable positions on every Python
    try:
        arguments = [ast.literal_eval(a) for a in call.args]
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    used = _identifiers(tree)
    renames: dict[str, str] = {}
    for name, value in zip(parameters, arguments, strict=True):
        pool = PARAMETERS.get(type(value), OTHER)
        free = [n for n in pool if n not in used and n not in _TAKEN]
        if free:
            renames[name] = rng.choice(free)
            used.add(renames[name])
    free = [n for n in FUNCTIONS if n not in used and n not in _TAKEN]
    if not free:
        return None
    new_function = rng.choice(free)
    source = _rename(program.source, tree, function, new_function, renames)
    entry = new_function + (program.entry or "")[len(function.name) :]
    return TrainingProgram(source, entry, program.origin)


def _identifiers(tree: ast.AST) -> set[str]:
    """Every name the code spells: variables, arguments, attributes, keywords, imports."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name.split(".")[0])
    return found


def _rename(
    source: str,
    tree: ast.Module,
    function: ast.FunctionDef,
    new_function: str,
    renames: dict[str, str],
) -> str:
    """``source`` with the function's name and the parameters in ``renames`` replaced where
    the tree has them: the ``def``, its parameters and every variable of those names."""
    edits: list[tuple[int, int, str, str]] = []  # line, column, old, new
    header = source.split("\n")[function.lineno - 1]
    column = header.index("def ", function.col_offset) + len("def ")
    edits.append((function.lineno, column, function.name, new_function))
    every = {function.name: new_function, **renames}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in every:
            edits.append((node.lineno, node.col_offset, node.id, every[node.id]))
        elif isinstance(node, ast.arg) and node.arg in renames:
            edits.append((node.lineno, node.col_offset, node.arg, renames[node.arg]))
    lines = source.split("\n")
    for line, column, old, new in sorted(edits, reverse=True):
        text = lines[line - 1].encode()
        if text[column : column + len(old.encode())] != old.encode():
            raise ValueError(f"no {old!r} at {line}:{column}")
        end = column + len(old.encode())
        lines[line - 1] = (text[:column] + new.encode() + text[end:]).decode()
    return "\n".join(lines)
