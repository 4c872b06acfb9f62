"""Which way a branch goes, read from the values the state standing on its head shows.

Why: a small model writes a loop's values right and still takes one turn too many (``for i in
range(3)`` entered again with ``i = 3``), or steps into an ``if`` whose condition its own
values make false. A debugger's next line after ``if``, ``while`` or ``for`` follows from the
frame's values when the head runs, and the state standing on the head shows them. Where the
head's condition uses only what can be read from those values without running the program's
code, the next line is fixed: the body's first line, or one of the lines past it.

What a head's condition may use (anything else leaves the way open): what the shared evaluator
(:mod:`.expressions`) computes under its predicting rules, over

* literals, and variables whose value the state writes as a literal (``ast.literal_eval``; no
  cut value, no ``...`` of a cycle, no escaped token delimiters); in a function, also the
  module's constants (:mod:`.module_constants`) where the function binds no such name;
* the builtins it knows (``len``, ``min``, ``sorted``, ``isinstance`` with builtin types, ...)
  where the code binds no such name; operators, comparisons (``is`` only against ``None``),
  subscripts, slices, f-strings, and the reading methods of strings, lists and dicts.

A ``for`` head's way needs its iterable and where the frame was before: ``range(...)``,
``enumerate(...)`` of a sequence, or a string, bytes, tuple, list or dict written as above (a
set's order is its hash table's, which its repr does not fix). Arriving from outside the loop,
the loop starts: an empty iterable skips the body, else the body gets the first item. Arriving
from the loop's body, the item the targets hold is the one just done: the next comes, or, after
the last, the loop ends. The iterable must be the one the loop started with: none of its names
is bound in the body, nor, for a list or a dict, changed there (:func:`changed_names`); nor are
the targets bound in the body, which would hide the item just done.

Where the history shows the loop's current run step by step, the turns it counts fix the way
instead (:func:`way_after_turns`): after ``done`` turns the next item is the iterable's
``done``-th, read from the frame's values when the loop started. That needs neither the targets
nor the items to differ: it holds where an item repeats (``for c in 'hello'``) and where the
body binds the targets or the iterable's names. A list the iterator goes on reading while the
body changes it (``for x in xs: xs.append(...)``) is read as Python's list iterator reads it:
by position, in the list as it is now.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from neural_debugger.model_backend.call_sites import bound_names
from neural_debugger.model_backend.expressions import (
    BUILTINS,
    PREDICTING,
    READING_ATTRIBUTES,
    TYPES,
    VIEWS,
    EvaluationError,
    Evaluator,
    Rules,
    holds_a_set,
)
from neural_debugger.protocol.source_map import yields
from neural_debugger.tracer.values import (
    CUT_MARKER,
    MAX_VALUE_CHARS,
    MORE_VARIABLES_KEY,
    render_value,
)

MAX_ITEMS = 10_000  # items a loop's iterable or a computed value may have
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# builtins a head may call (where the code binds no such name); the last three only to make
# a ``for``'s items
_FRAMES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, *_COMPREHENSIONS)
_SIMPLE = (bool, int, float, str, bytes, type(None))
_INDEXED = (str, bytes, list, tuple, dict, range, *VIEWS)  # iterated in the order they show


class Undecided(Exception):
    """The head's way cannot be read from the values shown."""


@dataclass(frozen=True)
class Head:
    """An ``if``, ``elif``, ``while`` or ``for`` head whose test or iterable sits on its line."""

    line: int
    body: int  # the body's first line: where the way goes when the test holds or items remain
    loop_end: int  # a ``for``'s last body line (its ``else`` aside); else ``line``
    test: ast.expr | None  # ``if`` and ``while``
    local: frozenset[str] | None  # the enclosing function's own names (None: module, class)
    targets: tuple[str, ...] = ()  # ``for``: the names its target binds, in order
    tuple_target: bool = False  # ``for a, b in ...``
    iterable: ast.expr | None = None  # ``for``
    # ``for``: names whose list or dict other code may change while the loop runs: those its
    # body mentions, and those of functions that can run meanwhile (nested ones; for the
    # module's loops, every function's)
    shared: frozenset[str] = frozenset()
    # ``for``: the body's lines that other frames' code (functions, lambdas, classes,
    # comprehensions made there) may stand on
    nested: frozenset[int] = frozenset()
    # ``for``: the body binds a target (hiding the item just done) or a name of the iterable
    # (so the values shown may no longer be those it was made from)
    rebinding: bool = False
    rebound_iterable: bool = False  # ``for``: a name of the iterable is among them
    generator: bool = False  # in a generator's frame, which resumes with a call of its own
    # an ``if`` whose body sits on its own line (``if d == 0: t += 1``): the body fires no
    # line event; "plain" (it binds what it binds and goes on) or "return" (``return X``)
    inline: str = ""
    orelse: int | None = None  # the first line of its ``elif`` or ``else``, if any
    returned: ast.expr | None = None  # an inline ``return X``: ``X``


@dataclass(frozen=True)
class Way:
    """Where a head leads: into its body (``into``), or past it; and, into a ``for``'s body,
    the texts its targets show there."""

    into: bool
    shown: Mapping[str, str]
    starts: bool = True  # a ``for``'s loop starts here (its iterable is made); else it goes on


def declared_names(tree: ast.Module) -> set[str]:
    """The names some ``global`` or ``nonlocal`` statement of ``tree`` declares: a frame's
    locals may not show them."""
    return {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Global | ast.Nonlocal)
        for name in node.names
    }


def heads(tree: ast.Module) -> dict[int, Head]:
    """The branch heads of ``tree`` by line."""
    declared = declared_names(tree)
    found: dict[int, Head] = {}

    def visit(
        statements: list[ast.stmt], local: frozenset[str] | None, shared: set[str], made: bool
    ) -> None:
        for statement in statements:
            head = _head(statement, local, declared, shared)
            if head is not None:
                found[head.line] = replace(head, generator=made)
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = {n for s in statement.body for n in _nested_names(s)}
                generator = yields(statement) or isinstance(statement, ast.AsyncFunctionDef)
                visit(statement.body, own_names(statement), inner, generator)
                continue
            if isinstance(statement, ast.ClassDef):
                visit(statement.body, None, shared, False)
                continue
            for block in blocks(statement):
                visit(block, local, shared, made)

    visit(tree.body, None, {n for s in tree.body for n in _nested_names(s)}, False)
    return found


def blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds (its handlers' and cases' bodies too)."""
    blocks = [getattr(statement, f, None) for f in ("body", "orelse", "finalbody")]
    out = [b for b in blocks if isinstance(b, list)]
    for part in [*getattr(statement, "handlers", []), *getattr(statement, "cases", [])]:
        out.append(part.body)
    return out


def _nested_names(node: ast.AST) -> set[str]:
    """The names mentioned inside the functions and lambdas ``node`` holds."""
    return {
        name
        for inner in ast.walk(node)
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for name in _names(inner)
    }


def _head(
    statement: ast.stmt, local: frozenset[str] | None, declared: set[str], shared: set[str]
) -> Head | None:
    if isinstance(statement, ast.If | ast.While):
        test = statement.test
        if not statement.body or test.end_lineno != statement.lineno or _names(test) & declared:
            return None
        line = statement.lineno
        if statement.body[0].lineno != line:
            return Head(line, statement.body[0].lineno, line, test, local)
        inline = _inline(statement)
        if not inline:
            return None
        orelse = statement.orelse[0].lineno if statement.orelse else None
        body = statement.body[0]
        returned = body.value if isinstance(body, ast.Return) else None
        return Head(line, line, line, test, local, inline=inline, orelse=orelse, returned=returned)
    if not isinstance(statement, ast.For):
        return None
    names = _target_names(statement.target)
    iterable = statement.iter
    if names is None or iterable.end_lineno != statement.lineno or not statement.body:
        return None
    body_first = statement.body[0].lineno
    if body_first == statement.lineno or (_names(iterable) | set(names)) & declared:
        return None
    stored = _stored(statement.body)
    end = statement.body[-1].end_lineno or body_first
    changed = changed_names(statement.body)
    tupled = isinstance(statement.target, ast.Tuple)
    nested = {
        line
        for s in statement.body
        for node in ast.walk(s)
        if isinstance(node, _FRAMES)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    return Head(
        statement.lineno,
        body_first,
        end,
        None,
        local,
        names,
        tupled,
        iterable,
        frozenset(changed | shared),
        frozenset(nested),
        rebinding=bool(stored & (set(names) | _names(iterable))),
        rebound_iterable=bool(stored & _names(iterable)),
    )


def _inline(statement: ast.If | ast.While) -> str:
    """What the body of an ``if`` written on its head's line does: "plain" (simple
    statements that go on to what follows the ``if``), "return" (``return X`` alone), or ""
    (anything else: a ``while``, a jump, a body going on past the line)."""
    body = statement.body
    if isinstance(statement, ast.While):
        return ""
    if not all(s.lineno == s.end_lineno == statement.lineno for s in body):
        return ""
    if len(body) == 1 and isinstance(body[0], ast.Return):
        return "return"
    jumps = (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)
    if any(isinstance(node, jumps) for s in body for node in ast.walk(s)):
        return ""
    if any(isinstance(s, ast.Global | ast.Nonlocal | ast.Try) for s in body):
        return ""
    return "plain"


def unbound_builtins(tree: ast.Module) -> frozenset[str]:
    """The builtins a head may call that no code of ``tree`` binds a name of its own to."""
    return frozenset((BUILTINS.keys() | TYPES.keys()) - set(bound_names(tree)))


def outside_its_loop(
    found: Mapping[int, Head], line: int, shown: Mapping[str, str | None], builtins: frozenset[str]
) -> bool:
    """Whether a frame standing on ``line`` with the locals ``shown`` cannot be: the targets of
    a ``for`` whose body holds the line show no item of its iterable (``i = 3`` in the body of
    ``for i in range(n)`` with ``n = 3``). A model's breakpoint jump writes such a hit after a
    loop's last turn."""
    for head in found.values():
        if head.iterable is None or not head.body <= line <= head.loop_end or line in head.nested:
            continue
        if head.rebinding:  # the targets may show what the body bound, not an item
            continue
        if not all(name in shown for name in head.targets) or MORE_VARIABLES_KEY in shown:
            continue
        try:
            items = _unpacked(head, Values(shown, {}, builtins, head.local))
        except Undecided:
            continue
        done = tuple(shown.get(name) for name in head.targets)
        if all(_item_texts(head, item) != done for item in items):
            return True
    return False


# builtins that read their arguments and keep no hold on them (the program binds no such name)
_READING_BUILTINS = frozenset(
    {"len", "min", "max", "sum", "sorted", "abs", "repr", "round", "any", "all", "bool", "int"}
    | {"float", "str", "list", "tuple", "set", "dict", "chr", "ord", "divmod", "range", "print"}
    | {"isinstance", "hash", "format", "ascii", "bin", "hex", "oct", "frozenset", "bytes"}
)


def changed_names(statements: list[ast.stmt]) -> set[str]:
    """The names whose values the statements may change in place, or hand to what may (a
    conservative reading: a loop's list or dict that its body only reads is not among them).

    A name counts where it is the root of a stored or deleted item or attribute
    (``d[k] = v``, ``del xs[0]``, ``grid[i][j] += 1``), the receiver of a method that is not
    one of the evaluator's reading methods (``xs.append(x)``, ``xs[0].sort()``), an argument of
    any call but a reading builtin's (``helper(xs)``, ``out.append(xs)``), or a value stored
    under another name or in a display (``alias = xs``, ``[xs]``), which may change it later."""
    out: set[str] = set()
    for node in (n for statement in statements for n in ast.walk(statement)):
        if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            out |= _roots(node.value)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr not in READING_ATTRIBUTES:
                out |= _roots(func.value)
            if not (isinstance(func, ast.Name) and func.id in _READING_BUILTINS):
                given = [*node.args, *(k.value for k in node.keywords)]
                out |= {name for value in given for name in _roots(value, starred=True)}
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value:
            out |= _roots(node.value)
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            out |= {name for value in node.elts for name in _roots(value, starred=True)}
        elif isinstance(node, ast.Dict):
            out |= {name for value in node.values for name in _roots(value)}
        elif isinstance(node, ast.Lambda | ast.Yield | ast.YieldFrom | ast.Return):
            out |= _names(node)  # kept by a function, or handed out of the frame
    return out


def _roots(node: ast.expr | None, starred: bool = False) -> set[str]:
    """The name ``node`` reaches its value through, where its value is that name's object or a
    part of it (``xs``, ``xs[0]``, ``d[k][1]``, ``obj.items``); a computed value has none."""
    while node is not None:
        if isinstance(node, ast.Name):
            return {node.id}
        whole = isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice)
        if (
            whole
            or isinstance(node, ast.Attribute | ast.NamedExpr)
            or (starred and isinstance(node, ast.Starred))
        ):
            node = cast(ast.Subscript | ast.Attribute | ast.NamedExpr | ast.Starred, node).value
        elif isinstance(node, ast.IfExp):
            return _roots(node.body, starred) | _roots(node.orelse, starred)
        elif isinstance(node, ast.BoolOp):
            return {name for value in node.values for name in _roots(value, starred)}
        else:
            return set()
    return set()


def _target_names(target: ast.expr) -> tuple[str, ...] | None:
    if isinstance(target, ast.Name):
        return (target.id,)
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return tuple(e.id for e in target.elts if isinstance(e, ast.Name))
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _stored(body: list[ast.stmt]) -> set[str]:
    """Names the statements bind or delete in their own scope (nested scopes aside)."""
    out: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
            stack.extend(node.decorator_list)
            continue
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            if isinstance(node, _COMPREHENSIONS):  # their walrus targets bind outside
                out.update(
                    n.target.id
                    for n in ast.walk(node)
                    if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
                )
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def own_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """A function's local names: its parameters and what its own code binds."""
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    parameters += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return frozenset({a.arg for a in parameters} | _stored(function.body))


# ---------------------------------------------------------------------- values


def literal(text: str | None) -> object:
    """The value the tracer wrote as ``text``, where ``text`` is a whole literal (see the
    module); :class:`Undecided` otherwise."""
    if text is None or CUT_MARKER in text or "<\\|" in text or "|\\>" in text:
        raise Undecided(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as error:
        raise Undecided(text) from error
    if not plain(value):
        raise Undecided(text)
    return value


def plain(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is made of the builtin literals a condition may read (no ``...``)."""
    if depth > 20:
        return False
    if isinstance(value, _SIMPLE):
        return True
    if isinstance(value, list | tuple):
        return all(plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(plain(k, depth + 1) and plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, set | frozenset):
        return all(plain(v, depth + 1) for v in value)
    return False


class Values:
    """The names a head's condition reads: the frame's locals as the state writes them, then
    the module's constants (in a function that binds no such name), then the builtins the code
    leaves unbound."""

    def __init__(
        self,
        shown: Mapping[str, str | None],
        constants: Mapping[str, object],
        builtins: frozenset[str],
        local: frozenset[str] | None,
    ) -> None:
        self.shown = shown
        self.constants = constants if local is not None else {}
        self.builtins = builtins
        self.local = local or frozenset()

    def __getitem__(self, name: str) -> object:
        if name in self.shown:
            return literal(self.shown[name])
        if name in self.local:
            raise Undecided(name)  # unbound here: Python raises
        if name in self.constants and plain(self.constants[name]):
            return self.constants[name]
        raise Undecided(name)

    def builtin(self, name: str) -> bool:
        return name in BUILTINS and name in self.builtins and name not in self.shown


def evaluate(node: ast.expr, values: Values, rules: Rules = PREDICTING) -> Any:
    """``node``'s value, computed from ``values`` by the shared evaluator
    (:mod:`.expressions`, under ``rules``); :class:`Undecided` where the node uses anything
    else or Python would raise."""
    return Reading(values, rules).run(node)


class Reading(Evaluator):
    """The shared evaluator, reading names through :class:`Values`: the builtins it calls are
    those the code leaves unbound, and what it builds is small (:data:`MAX_ITEMS`)."""

    def __init__(self, values: Values, rules: Rules = PREDICTING) -> None:
        super().__init__(values.shown, replace(rules, builtins=values.builtins))  # type: ignore[arg-type]
        self.values = values

    def lookup(self, name: str) -> object:
        return self.values[name]

    def run(self, node: ast.expr) -> Any:
        """:meth:`evaluate_node`, its refusals and errors as :class:`Undecided`."""
        try:
            value = self.evaluate_node(node)
        except EvaluationError as error:
            raise Undecided(str(error)) from error
        _check_size(value)
        return value


def _check_size(value: object) -> None:
    if isinstance(value, str | bytes | list | tuple | dict | set) and len(value) > MAX_ITEMS:
        raise Undecided("too large")
    if isinstance(value, int) and value.bit_length() > 256:
        raise Undecided("too large")


# ---------------------------------------------------------------------- the way


def items_of(head: Head, values: Values) -> list[Any]:
    """The items a ``for`` head's loop goes through, read from ``values`` (a list or dict
    other code may change while the loop runs: :class:`Undecided`)."""
    node = head.iterable
    assert node is not None
    for name in _names(node) & head.shared:
        if name in values.shown and isinstance(_value_or_none(values, name), list | dict):
            raise Undecided("the loop's list or dict may change")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if not values.builtin(name) or node.keywords:
            raise Undecided("call")
        arguments = [evaluate(a, values) for a in node.args]
        if name == "range" and 1 <= len(arguments) <= 3:
            if not all(type(a) is int for a in arguments):
                raise Undecided("range")
            span = range(*arguments)
            if len(span) > MAX_ITEMS:
                raise Undecided("too large")
            return list(span)
        if name == "enumerate" and 1 <= len(arguments) <= 2:
            start = arguments[1] if len(arguments) == 2 else 0
            if type(start) is not int:
                raise Undecided("enumerate")
            return list(enumerate(in_order(arguments[0]), start))
        if name == "reversed" and len(arguments) == 1:
            return list(reversed(list(in_order(arguments[0]))))
        if name == "zip" and arguments:
            return list(zip(*(in_order(a) for a in arguments), strict=False))
        if name != "sorted":
            raise Undecided("call")
    return list(in_order(evaluate(node, values)))


def _unpacked(head: Head, values: Values) -> list[Any]:
    """:func:`items_of`, each of which the head's target can unpack; none holding a set,
    whose text the tracer writes in its own table's order, not a copy's."""
    items = items_of(head, values)
    if any(holds_a_set(item) for item in items):
        raise Undecided("a set")
    if head.tuple_target and not all(
        isinstance(item, tuple) and len(item) == len(head.targets) for item in items
    ):
        raise Undecided("unpacking")
    return items


def in_order(value: object) -> Iterable[object]:
    """``value`` to iterate, where its items come in the order its text shows them
    (:class:`Undecided` otherwise: a set's order is its own hash table's, not its repr's)."""
    if not isinstance(value, _INDEXED):
        raise Undecided("iterable")
    return cast(Iterable[object], value)


def _value_or_none(values: Values, name: str) -> object:
    try:
        return values[name]
    except Undecided:
        return None


def way(head: Head, values: Values, arrived_from: Iterable[int]) -> Way:
    """Where ``head`` leads from the values shown on it (:class:`Undecided`: not known).

    ``arrived_from``: for a ``for``, every line the frame may have stood on before the head
    (none: not known)."""
    if head.test is not None:
        return Way(bool(evaluate(head.test, values)), {})
    if head.rebinding:
        raise Undecided("the body binds the targets or the iterable's names")
    froms = list(arrived_from)
    inside = [head.body <= n <= head.loop_end for n in froms]
    if MORE_VARIABLES_KEY in values.shown:
        raise Undecided("variables hidden")  # the targets may be among them
    if not all(name in values.shown for name in head.targets):
        inside = [False]  # the targets are unbound: no item is done, the loop starts
    elif not froms or (any(inside) and not all(inside)):
        raise Undecided("arrival")
    items = _unpacked(head, values)
    if not all(inside):  # the loop starts
        return Way(True, _shown(head, items[0])) if items else Way(False, {})
    done = tuple(values.shown.get(name) for name in head.targets)  # the item just done
    places = [k for k, item in enumerate(items) if _item_texts(head, item) == done]
    if not places or (len(items) - 1 in places and len(places) > 1):
        raise Undecided("not an item, or one that repeats")
    if places == [len(items) - 1]:
        return Way(False, {}, starts=False)
    following = {k + 1 for k in places}
    shown = _shown(head, items[following.pop()]) if len(following) == 1 else {}
    return Way(True, shown, starts=False)


def way_after_turns(head: Head, done: int, started: Values, now: Values) -> Way:
    """Where a ``for`` head leads after its loop's current run went through ``done`` items
    (:class:`Undecided`: not known): the next item, or past the loop after the last.

    ``started``: the frame's values when the run began, on its first arrival at the head (the
    iterable is made then); ``now``: its values on this arrival. A list or dict the iterator
    goes on reading (the iterable itself, or what ``enumerate``, ``zip``, ``reversed`` or a
    view wraps) and that the body may change is read now, where Python's list iterator reads
    it: a list named alone, not rebound in the body, by position. Otherwise the items, made
    when the run began, must hold nothing that code may change meanwhile."""
    node = head.iterable
    assert node is not None and done >= 0
    kept = _kept_names(node)
    changing = {
        name for name in _names(node) & head.shared if not _fixed(_value_or_none(started, name))
    }
    if changing & kept:
        if not isinstance(node, ast.Name) or head.rebound_iterable:
            raise Undecided("the loop's list or dict may change")
        current = now[node.id]
        if not isinstance(current, list):
            raise Undecided("a dict the body may change")
        items = current  # a list the body changes: read by position, as it is now
    else:
        items = items_of(replace(head, shared=frozenset()), started)
        if changing and not all(_fixed(item) for item in items):
            raise Undecided("items the body may change")
    if any(holds_a_set(item) for item in items):
        raise Undecided("a set")
    if done >= len(items):
        return Way(False, {}, starts=done == 0)
    item = items[done]
    if head.tuple_target and not (isinstance(item, tuple) and len(item) == len(head.targets)):
        raise Undecided("unpacking")
    return Way(True, _shown(head, item), starts=done == 0)


def _kept_names(node: ast.expr) -> set[str]:
    """The names whose objects a loop's iterator goes on reading while the loop runs: the
    iterable's own, or those ``enumerate``, ``zip``, ``reversed``, ``iter`` or a dict's view
    wrap (a slice, ``sorted`` or ``list`` copies; a method like ``split`` makes a new value)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return _kept_names(node.value)
    if isinstance(node, ast.IfExp):
        return _kept_names(node.body) | _kept_names(node.orelse)
    if isinstance(node, ast.BoolOp):
        return {name for value in node.values for name in _kept_names(value)}
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("enumerate", "zip", "reversed", "iter"):
            return {name for argument in node.args for name in _kept_names(argument)}
        if isinstance(func, ast.Attribute) and func.attr in ("items", "keys", "values"):
            return _kept_names(func.value)
    return set()


def _fixed(value: object) -> bool:
    """Whether ``value`` holds nothing that code can change in place (no list, dict or set)."""
    if isinstance(value, list | dict | set):
        return False
    if isinstance(value, tuple):
        return all(_fixed(v) for v in value)
    return True


def _item_texts(head: Head, item: Any) -> tuple[str, ...]:
    parts = item if head.tuple_target else (item,)
    return tuple(render_value(part) for part in parts)


def _shown(head: Head, item: object) -> dict[str, str]:
    """The texts the targets show once bound to ``item`` (short values only)."""
    texts = _item_texts(head, item)
    if any(len(t) > MAX_VALUE_CHARS // 2 for t in texts):
        return {}
    return dict(zip(head.targets, texts, strict=True))
