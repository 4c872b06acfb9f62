"""Predicted values: repr texts rebuilt into Python values, their children, how sure they are.

The model writes each variable as a repr text. Where that text is a literal (numbers, strings,
lists, dicts, tuples, sets...), :func:`rebuild` turns it back into a value with
:func:`ast.literal_eval`, which never runs code, so the editor can expand containers and the
evaluator can compute over them. Texts that are not literals (``<object at 0x...>``) stay text.
"""

from __future__ import annotations

import re
from typing import Any

from neural_debugger.model_backend.confidence import sure
from neural_debugger.model_backend.expressions import NotALiteral, rebuild

CONTAINERS = (list, tuple, dict, set, frozenset)


_CLASS = re.compile(r"<class '([A-Za-z_][\w.]*)'>")


def rebuild_or_none(text: str) -> tuple[bool, Any]:
    """``(True, value)`` for a literal text, ``(False, None)`` for any other."""
    try:
        return True, rebuild(text)
    except NotALiteral:
        return False, None


def type_name(text: str) -> str:
    """The type of a rebuilt value, or ``object`` for a text that is not a literal."""
    ok, value = rebuild_or_none(text)
    return type(value).__name__ if ok else "object"


def is_container(value: Any) -> bool:
    return isinstance(value, CONTAINERS) and len(value) > 0


def children(value: Any) -> list[tuple[str, Any, Any]]:
    """The parts of a container as ``(shown name, key, part)``.

    Sequences are keyed by index, dicts by key (shown as its repr), sets by position (a set has
    no key; ``key`` is ``None`` then, so such parts can be shown but not addressed).
    """
    if isinstance(value, list | tuple):
        return [(str(i), i, part) for i, part in enumerate(value)]
    if isinstance(value, dict):
        return [(repr(k), k, part) for k, part in value.items()]
    if isinstance(value, set | frozenset):
        return [(str(i), None, part) for i, part in enumerate(_set_order(value))]
    return []


def _set_order(value: set[Any] | frozenset[Any]) -> list[Any]:
    try:
        return sorted(value)
    except TypeError:
        return sorted(value, key=repr)


def replace_part(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the part at ``path`` (keys from the top) replaced by ``new``.

    Tuples are rebuilt (they cannot be assigned into); a path through a set cannot be followed.
    """
    if not path:
        return new
    key, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        copy[key] = replace_part(value[key], rest, new)
        return copy
    if isinstance(value, list | tuple) and isinstance(key, int):
        items = list(value)
        items[key] = replace_part(value[key], rest, new)
        return tuple(items) if isinstance(value, tuple) else items
    raise NotALiteral(f"a part of a {type(value).__name__} cannot be edited")


def part_at(value: Any, path: tuple[Any, ...]) -> Any:
    """The part of ``value`` at ``path`` (keys from the top)."""
    for key in path:
        if key is None or not isinstance(value, list | tuple | dict):
            raise NotALiteral("that part can no longer be found")
        try:
            value = value[key]
        except (IndexError, KeyError, TypeError):
            raise NotALiteral("that part can no longer be found") from None
    return value


def sureness(p: float | None, edited: bool = False) -> str:
    """Words for how a value came to be: ``62% sure``, ``set by you``, ``confidence unknown``."""
    if edited:
        return "set by you"
    if p is None:
        return "confidence unknown"
    return sure(p)


def shown_value(text: str, module: str = "__main__", classes: frozenset[str] = frozenset()) -> str:
    """A value as debugpy prints it, so Copy Value and watches get the value itself.

    How sure the model was is never part of it (the variable's ``type`` carries it). The
    tracer writes a class of the program as ``<class 'Name'>``; Python (and debugpy) writes
    ``<class 'module.Name'>``, so the program's own classes get their module back.
    """
    if "<class '" not in text or not classes:
        return text
    return _CLASS.sub(
        lambda m: f"<class '{module}.{m.group(1)}'>" if m.group(1) in classes else m.group(0),
        text,
    )
