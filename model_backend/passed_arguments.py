"""Arguments the code alone fixes: the literals a plain function is called with.

Why: a breakpoint inside ``describe_pairs(d)``, in a script whose one call of it is
``describe_pairs({'kiwi': 3})``, shows ``d``. The model, jumping there from the run's start,
writes what it guesses (``1``), and every later stop in that frame repeats the guess; a step
into such a call shows its parameters with values the caller's line spells out. Where the code
alone fixes a parameter's value, the grammar writes it instead of the model.

Only *plain* functions count (:mod:`.call_sites`: called by name alone, so every call of one is
in the code). A call binds a parameter to a literal argument (``ast.literal_eval`` reads it:
numbers, strings, bytes, booleans, ``None``, and tuples, lists and dicts of them; never a set,
whose order can depend on hashing), or, where it leaves the parameter out, to its default if
that is an immutable literal (a mutable default lives on between calls). A parameter given
anything else is not fixed; a call that cannot bind (``*args``, ``**kwargs``, too many
arguments, a missing one) fixes none. Values read as the tracer's renderer writes them.

* A call state of the function shows each parameter with the value its call passed
  (:meth:`PassedArguments.on_lines`, for the calls on given lines; :meth:`by_every_call`, where
  every call of the function passes the same). After a step into from the calling line, a
  parameter given a variable (``f(x)``) shows the value the line state showed for ``x``, where
  nothing the statement runs before the call can rebind or change it (:func:`_quiet`).
* A line state of the function's own frame shows it with that value too, where every call
  passes the same one and the frame keeps it (:meth:`kept`): no code of the function (nested
  functions and comprehensions included) binds or deletes the name, and, for a value holding
  lists or dicts (a new object at each call, which only the frame holds), every use of the
  name only reads it (:class:`_Reading`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from neural_debugger.model_backend.bindings import bound_once
from neural_debugger.model_backend.call_sites import bound_names, own_nodes
from neural_debugger.model_backend.module_constants import fixed_literal
from neural_debugger.tracer.values import CUT_MARKER, render_value

# Builtins that read their arguments and keep nothing of them.
_READING = frozenset(
    {"len", "bool", "str", "repr", "ascii", "print", "isinstance", "hash", "id", "type"}
    | {"format", "sum", "any", "all", "abs", "round", "int", "float", "callable"}
)
# Builtins whose result holds the argument's items (or is one of them): reading, where the
# items cannot change.
_ITEMS_OUT = frozenset(
    {"sorted", "list", "tuple", "dict", "enumerate", "zip", "reversed", "iter", "min", "max"}
    | {"set", "frozenset"}
)
# Expressions that run in frames of their own.
_OWN_FRAMES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Methods of lists, tuples and dicts that change nothing; each returns items, views of them or
# a shallow copy.
_READING_METHODS = frozenset({"get", "keys", "values", "items", "copy", "index", "count"})


@dataclass(frozen=True)
class _Call:
    """One call of a plain function, as its code reads."""

    on: frozenset[int]  # the lines a frame making the call stands on
    values: dict[str, tuple[str, int]]  # parameter -> a literal's text and depth
    # parameter -> the caller's variable it is given, where nothing the statement runs before
    # the call can rebind or change one (:func:`_quiet`)
    names: dict[str, str]
    # parameter -> the expression it is given (neither a literal nor a variable)
    expressions: dict[str, ast.expr] = field(default_factory=dict)
    # the statement runs nothing before the call but what its arguments compute
    # (:func:`_first_in`): where those run no code of the program, it is the first call made
    first: bool = False


class PassedArguments:
    """The values calls pass to each plain function of one code context (by its def line)."""

    def __init__(
        self,
        functions: Mapping[int, ast.FunctionDef] | None = None,
        sites: Mapping[int, Iterable[tuple[ast.Call, frozenset[int], ast.stmt]]] | None = None,
        builtins_kept: frozenset[str] = frozenset(),
        constants: Mapping[str, object] | None = None,
    ) -> None:
        """``functions``: the plain functions by def line; ``sites``: each one's calls, with
        the lines a frame making the call stands on and the statement holding it;
        ``builtins_kept``: builtins' names the code never binds (so a call by one is the
        builtin's); ``constants``: the module's names bound once in the code to a literal the
        run never changes (:mod:`.module_constants`), by their values: an argument naming
        one passes that literal."""
        self._calls: dict[int, list[_Call]] = {}
        self._on_line: dict[int, list[tuple[int, _Call]]] = {}  # a line -> the calls made there
        self._kept: dict[int, dict[str, str]] = {}
        self._readable: dict[int, dict[str, str]] = {}
        for line, function in (functions or {}).items():
            calls = self._calls[line] = []
            for call, on, statement in (sites or {}).get(line, ()):
                given = _bind(function.args, call)
                values = _literals(given, constants or {})
                names = _names(given) if _quiet(statement, call) else {}
                names = {k: v for k, v in names.items() if k not in values}
                expressions = _expressions(given, {*values, *names})
                first = _first_in(statement, call)
                calls.append(_Call(on, values, names, expressions, first))
                for number in on:
                    self._on_line.setdefault(number, []).append((line, calls[-1]))
            every = _agreed(c.values for c in calls)
            bound = {name for statement in function.body for name in bound_names(statement)}
            self._readable[line] = {
                name: text
                for name, (text, depth) in every.items()
                if _only_read_in(function, name, depth, builtins_kept)
            }
            self._kept[line] = {
                name: text for name, text in self._readable[line].items() if name not in bound
            }

    def at_call(
        self, function: int, lines: Iterable[int], shown: Mapping[str, str | None] | None = None
    ) -> dict[str, str]:
        """The parameters a call of the function on one of ``lines`` surely passes, as the
        tracer writes their values (see :meth:`on_lines`)."""
        return self.on_lines(lines, shown).get(function, {})

    def on_lines(
        self,
        lines: Iterable[int],
        shown: Mapping[str, str | None] | None = None,
        compute: Callable[[int, ast.expr], str | None] | None = None,
    ) -> dict[int, dict[str, str]]:
        """For each function a call on one of ``lines`` makes (by def line), the parameters
        such calls surely pass, as the tracer writes their values (those every one agrees on):
        literals, and, where ``shown`` holds the locals the caller's frame showed on its line
        just before, the values of the variables given (not a cut one); and, where
        ``compute`` gives the text of an expression on a line from those locals (None: not
        known), the values of the expressions given, if it knows every one."""
        found: dict[int, dict[int, dict[str, tuple[str, int]]]] = {}
        firsts: dict[int, list[dict[str, tuple[str, int]]]] = {}
        for line in set(lines):
            for function, call in self._on_line.get(line, ()):
                values = dict(call.values)
                for parameter, variable in call.names.items():
                    text = (shown or {}).get(variable)
                    if text is not None and not text.endswith(CUT_MARKER):
                        values[parameter] = (text, 0)
                if compute is not None and call.first:
                    texts = {p: compute(line, e) for p, e in call.expressions.items()}
                    if all(text is not None for text in texts.values()):  # builtins only: no
                        # call event comes before this one's
                        values.update({p: (str(text), 0) for p, text in texts.items()})
                        firsts.setdefault(function, []).append(values)
                found.setdefault(function, {})[id(call)] = values  # once per call
        agreed = {function: _agreed(calls.values()) for function, calls in found.items()}
        # the call made first on the line is the one a step into enters
        agreed.update({function: _agreed(values) for function, values in firsts.items()})
        return {
            function: {name: text for name, (text, _) in values.items()}
            for function, values in agreed.items()
        }

    def by_every_call(self, function: int) -> dict[str, str]:
        """The parameters every call of the function passes alike, as the tracer writes them."""
        found = self._calls.get(function, ())
        return {name: text for name, (text, _) in _agreed(c.values for c in found).items()}

    def literal_texts(self, function: int) -> dict[str, frozenset[str]]:
        """The parameters every call of the function passes a literal (or leaves to its
        immutable literal default), with the texts of those literals; none where the code
        makes no call of it."""
        calls = self._calls.get(function, [])
        if not calls:
            return {}
        common = set.intersection(*(set(c.values) for c in calls))
        return {name: frozenset(c.values[name][0] for c in calls) for name in common}

    def kept(self, function: int) -> dict[str, str]:
        """The parameters a frame of the function shows with one value at every line: every
        call passes it, and the function neither rebinds nor changes it."""
        return dict(self._kept.get(function, {}))

    def readable(self, function: int) -> dict[str, str]:
        """The parameters every call passes alike whose object the function never changes
        (an immutable one may be rebound: the frame shows the value until it is)."""
        return dict(self._readable.get(function, {}))


def _agreed(
    found: Iterable[Mapping[str, tuple[str, int]]],
) -> dict[str, tuple[str, int]]:
    """The parameters every mapping of ``found`` holds with the same text; empty if there
    are no mappings."""
    found = list(found)
    if not found:
        return {}
    first = found[0]
    return {
        name: value
        for name, value in first.items()
        if all(other.get(name, ("", 0))[0] == value[0] for other in found[1:])
    }


def _bind(parameters: ast.arguments, call: ast.Call) -> dict[str, tuple[ast.expr, bool]]:
    """What ``call`` binds each parameter to: the expression, and whether it is the
    parameter's default; empty where the call cannot be read (``*``/``**`` on either side)
    or does not bind (too many arguments, an unknown keyword, a parameter left out)."""
    if parameters.vararg or parameters.kwarg:
        return {}
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    ):
        return {}
    positional = [a.arg for a in [*parameters.posonlyargs, *parameters.args]]
    if len(call.args) > len(positional):
        return {}
    given = {name: (arg, False) for name, arg in zip(positional, call.args, strict=False)}
    by_keyword = {a.arg for a in [*parameters.args, *parameters.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg not in by_keyword or keyword.arg in given:
            return {}  # the call raises TypeError
        given[str(keyword.arg)] = (keyword.value, False)
    with_default = positional[len(positional) - len(parameters.defaults) :]
    defaults = dict(zip(with_default, parameters.defaults, strict=True))
    for arg, default in zip(parameters.kwonlyargs, parameters.kw_defaults, strict=True):
        if default is not None:
            defaults[arg.arg] = default
    for name in [*positional, *(a.arg for a in parameters.kwonlyargs)]:
        if name not in given:
            if name not in defaults:
                return {}  # a parameter left without a value: the call raises TypeError
            given[name] = (defaults[name], True)
    return given


def _literals(
    given: Mapping[str, tuple[ast.expr, bool]], constants: Mapping[str, object]
) -> dict[str, tuple[str, int]]:
    """The parameters bound to literals (a default only if immutable), or to names of the
    module's ``constants``, with their values' texts and depths (see :func:`_depth`); not
    those the tracer would cut."""
    values: dict[str, tuple[str, int]] = {}
    for name, (node, default) in given.items():
        if isinstance(node, ast.Name) and node.id in constants:
            ok, value = True, constants[node.id]
        else:
            ok, value = fixed_literal(node, mutable=not default)
        text = render_value(value) if ok else CUT_MARKER
        if not text.endswith(CUT_MARKER):
            values[name] = (text, _depth(value))
    return values


def _names(given: Mapping[str, tuple[ast.expr, bool]]) -> dict[str, str]:
    """The parameters given a variable of the caller (by an argument, not a default)."""
    return {
        name: node.id
        for name, (node, default) in given.items()
        if isinstance(node, ast.Name) and not default
    }


def _around(statement: ast.stmt, call: ast.Call) -> tuple[list[ast.AST], set[int]]:
    """The nodes of ``statement``'s own line event, and the ids of those around ``call``
    (its parents up to the statement: they run after it)."""
    nodes = list(own_nodes(statement))
    parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    around: set[int] = set()
    node: ast.AST = call
    while id(node) in parents:
        node = parents[id(node)]
        around.add(id(node))
    return nodes, around


def _quiet(statement: ast.stmt, call: ast.Call) -> bool:
    """Whether the variables ``call`` is given still hold, when it is made, what the caller's
    line state showed: the statement makes no other call but those around it (made after
    it), binds nothing by ``:=``, does not suspend, and the call is not inside a lambda or a
    comprehension, whose frames have variables of their own."""
    nodes, around = _around(statement, call)
    for node in nodes:
        if isinstance(node, ast.NamedExpr | ast.Yield | ast.YieldFrom | ast.Await):
            return False
        if isinstance(node, _OWN_FRAMES) and id(node) in around:
            return False
        if isinstance(node, ast.Call) and node is not call and id(node) not in around:
            return False
    return True


def _first_in(statement: ast.stmt, call: ast.Call) -> bool:
    """Whether ``statement`` runs nothing before ``call`` but its arguments: every other call
    in it is inside those arguments, around the call (made after it), or after it on the
    line, left to right; with no conditional expression (its test runs before its body), no
    ``:=``, nothing that suspends, and the call not in an assignment's target (the value runs
    first); and no lambda or comprehension on the line, whose frames run when something calls
    them, and a step into from which would call the function with values of their own."""
    inside = {id(n) for a in [*call.args, *call.keywords] for n in ast.walk(a)}
    nodes, around = _around(statement, call)
    targets = [
        *(statement.targets if isinstance(statement, ast.Assign) else []),
        *([statement.target] if isinstance(statement, ast.AugAssign | ast.AnnAssign) else []),
    ]
    if any(call is n for target in targets for n in ast.walk(target)):
        return False
    end = (call.end_lineno or call.lineno, call.end_col_offset or 0)
    for node in nodes:
        if isinstance(node, ast.NamedExpr | ast.Yield | ast.YieldFrom | ast.Await | ast.IfExp):
            return False
        if isinstance(node, _OWN_FRAMES):  # a frame of its own on the line, whose steps
            return False  # into may call the function with its own values
        if not isinstance(node, ast.Call) or node is call or id(node) in around | inside:
            continue
        if (node.lineno, node.col_offset) < end:  # before it, left to right
            return False
    return True


def _expressions(
    given: Mapping[str, tuple[ast.expr, bool]], known: set[str]
) -> dict[str, ast.expr]:
    """The parameters given an expression by an argument (not a default), those ``known``
    (a literal's, a variable's) aside."""
    return {
        name: node for name, (node, default) in given.items() if not default and name not in known
    }


def _depth(value: object) -> int:
    """How many levels down ``value``'s lists and dicts reach (0: nothing in it can change);
    each subscript takes one level off."""
    if isinstance(value, dict):
        return 1 + max((_depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(item) for item in value), default=0)
    if isinstance(value, tuple):
        inner = max((_depth(item) for item in value), default=0)
        return inner + 1 if inner else 0
    return 0


def only_read_everywhere(
    tree: ast.Module,
    name: str,
    value: object,
    builtins_kept: frozenset[str],
    functions: Mapping[int, ast.FunctionDef],
) -> bool:
    """Whether the module's ``name``, bound to ``value`` (a literal) by one statement, keeps
    it for the whole run: no other code binds the name anywhere (no assignment, parameter,
    import, ``except ... as``, ``global`` or definition of it), so every use of the name is
    the module's, and every use only reads it (:class:`_Reading`), giving it to a plain
    function of the code (``functions``, by def line) included where that function only
    reads the parameter. Returning it does not read it: a caller may change what it gets."""
    if not bound_once(tree, name):
        return False
    plain = {function.name: function for function in functions.values()}  # names are unique

    def reads(call: ast.Call, node: ast.AST, depth: int) -> bool:
        """Whether ``call``, a plain function's, only reads ``node``, one of its arguments."""
        function = plain.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if function is None:
            return False
        given = [p for p, (arg, default) in _bind(function.args, call).items() if arg is node]
        bound = {n for statement in function.body for n in bound_names(statement)}
        reading = _Reading(_parents(function.body), builtins_kept, returned=False)
        return (
            len(given) == 1 and given[0] not in bound and reading.within(function, given[0], depth)
        )

    reading = _Reading(_parents([tree]), builtins_kept, returned=False, reads=reads)
    depth = _depth(value)
    return all(
        reading.only(node, depth)
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    )


def _parents(roots: Iterable[ast.AST]) -> dict[int, ast.AST]:
    """Each node under ``roots`` (by id) -> the node holding it."""
    return {
        id(child): node
        for root in roots
        for node in ast.walk(root)
        for child in ast.iter_child_nodes(node)
    }


def _only_read_in(
    function: ast.FunctionDef, name: str, depth: int, builtins_kept: frozenset[str]
) -> bool:
    """Whether every use of ``name`` in ``function``'s body only reads its value, whose lists
    and dicts reach ``depth`` levels down (:class:`_Reading`)."""
    return _Reading(_parents(function.body), builtins_kept).within(function, name, depth)


@dataclass(frozen=True)
class _Reading:
    """Whether code only reads an object (see :meth:`only`)."""

    parents: Mapping[int, ast.AST]  # each node (by id) -> the node holding it
    builtins_kept: frozenset[str]  # builtins' names the code never binds
    returned: bool = True  # returning it reads it (a frame that keeps it ends there)
    # whether a call of the code only reads one of its arguments, a level of lists and dicts
    # reaching this deep (None: no call of the code does)
    reads: Callable[[ast.Call, ast.AST, int], bool] | None = None

    def within(self, function: ast.FunctionDef, name: str, depth: int) -> bool:
        """Whether every use of ``name`` in ``function``'s body only reads its value."""
        return depth == 0 or all(
            self.only(node, depth)
            for statement in function.body
            for node in ast.walk(statement)
            if isinstance(node, ast.Name) and node.id == name
        )

    def only(self, node: ast.AST, depth: int) -> bool:
        """Whether the object ``node`` evaluates to, whose lists and dicts reach ``depth``
        levels down, is only read where ``node`` stands: subscripted (a level down) and read,
        iterated, compared, formatted, given to a builtin that reads it or to a reading
        method, returned (where :attr:`returned`). Anything else (a store, a method that may
        change it, another function, an alias) may change it. Where its items cannot change
        (``depth`` 1), what holds only its items is fine; at ``depth`` 0 anything is."""
        if depth <= 0:
            return True
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if not isinstance(parent.ctx, ast.Load):
                return False
            if isinstance(parent.slice, ast.Slice):  # a new sequence of the same items
                return depth <= 1 or self.only(parent, depth)
            return self.only(parent, depth - 1)
        if isinstance(parent, ast.Return):
            return self.returned
        if isinstance(parent, ast.Compare | ast.UnaryOp | ast.FormattedValue | ast.Expr):
            return True
        if isinstance(parent, ast.BinOp):  # ``+``, ``*``, ``|``: a new object of the same items
            return depth <= 1 or self.only(parent, depth)
        if isinstance(parent, ast.For | ast.comprehension) and parent.iter is node:
            return depth <= 1
        if isinstance(parent, ast.Call) and any(arg is node for arg in parent.args):
            callee = parent.func
            if isinstance(callee, ast.Name) and callee.id in self.builtins_kept:
                return callee.id in _READING or (callee.id in _ITEMS_OUT and depth <= 1)
            if self.reads is not None and self.reads(parent, node, depth):
                return True
            # a method of a string literal (``", ".join(parts)``, ``"{}".format(d)``)
            return isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Constant)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = self.parents.get(id(parent))
            called = isinstance(call, ast.Call) and call.func is parent
            return called and parent.attr in _READING_METHODS and depth <= 1
        return False
