"""Where the code calls each of its functions, where the code alone can say so.

After a return, the frame that goes on is the caller, from the line that made the call. A
session's history usually shows that line, but not after a breakpoint jump, which skips the
call. For a *plain* function the code itself lists the lines that can call it: a ``def`` that
is not a method, not decorated, not a generator, the only ``def`` of its name, whose name is
never used but as the callee of a call (never passed, stored, rebound, shadowed, declared
global or reached as an attribute), in code that reaches no names dynamically (``eval``,
``globals()``, ``getattr``, ...). Then only the lines of its calls by name can call it, and
:func:`returning_to` gives them. Anything else gives None: not known.
"""

from __future__ import annotations

import ast
import builtins
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator

from neural_debugger.model_backend.handed_back import alone_on_their_lines
from neural_debugger.model_backend.module_constants import first_line, plain_classes

# Builtins and attributes through which code can reach a function without naming it.
_DYNAMIC_NAMES = frozenset(
    {"eval", "exec", "globals", "locals", "vars", "getattr", "__import__", "__dict__"}
)
_DYNAMIC_ATTRIBUTES = frozenset({"__dict__", "_getframe", "f_globals", "f_locals", "modules"})
_BUILTINS = frozenset(dir(builtins))
# Nodes that bind their ``name``: definitions, handlers (``except E as e``), patterns.
_NAMED_BINDERS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.ExceptHandler,
    ast.MatchAs,
    ast.MatchStar,
)
# Nodes that open a frame of their own (a return from one goes back to its definer's frame).
_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


class CallSites:
    """The plain functions of one code context and the lines that call each."""

    def __init__(self, code: str) -> None:
        # a line -> the def line of the plain function whose own frame holds it (absent: a
        # line of another kind of frame, or of several)
        self._function_of: dict[int, int] = {}
        # the same for plain methods, and each one's def line -> the lines of its calls
        self._method_of: dict[int, int] = {}
        self._method_calls: dict[int, set[int]] = {}
        # a line of a class body's own frame -> the lines of its ``class`` statement's header
        self._class_header: dict[int, frozenset[int]] = {}
        self._calls: dict[int, frozenset[int]] = {}  # a plain function's def line -> call lines
        # a line -> the first lines of the frames a step into from it can enter (None: not
        # known, the code has frames that can be entered from lines it does not name)
        self._entered: dict[int, set[int]] | None = None
        self._once: dict[int, frozenset[int]] = {}  # see :meth:`called_once`
        # the lines whose step into surely enters a frame of the code first (or raises)
        self._calling: frozenset[int] = frozenset()
        # the lines whose step into surely enters one with no exception first, if the
        # variables each maps to are bound
        self._entering: dict[int, frozenset[str]] = {}
        # the plain functions by def line, each one's calls with the lines a frame making the
        # call stands on and the statement holding it, and the builtins' names the code never
        # binds
        self.functions: dict[int, ast.FunctionDef] = {}
        self.sites: dict[int, list[tuple[ast.Call, frozenset[int], ast.stmt]]] = {}
        self.builtins_kept: frozenset[str] = frozenset()
        # the lines on which one comprehension starts and no other frame's code does
        self.lone_comprehensions: frozenset[int] = frozenset()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(code)
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return
        if _reaches_names_dynamically(tree):
            return
        plain = _plain_functions(tree)
        callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        methods = _plain_methods(tree, callees)
        calls: dict[str, set[int]] = {name: set() for name in plain}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and id(node) in callees:
                continue  # a call by name: counted below, with its call's lines
            for name in _names_used(node):
                calls.pop(name, None)  # used otherwise: it may be called from anywhere
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                lines = calls.get(node.func.id)
                if lines is not None:
                    lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        for name, lines in calls.items():
            function = plain[name]
            self._calls[function.lineno] = frozenset(lines)
            self.functions[function.lineno] = function
            self.sites[function.lineno] = []
        for statement, node in _in_statements(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id in calls:
                on = frozenset({statement.lineno, *_span(node)})
                self.sites[plain[node.func.id].lineno].append((node, on, statement))
        self.builtins_kept = _BUILTINS - set(bound_names(tree))
        owner = _owners(tree)
        self._own_lines(owner, {plain[name].lineno for name in calls})
        self._method_lines(tree, owner, methods)
        self._init_lines(owner, _plain_inits(tree, callees))
        self._class_header = _class_body_lines(tree)
        self._calling = _surely_calling(tree, owner)
        self._entering = _surely_entering(tree, owner)
        if _frames_opened_only_where_written(tree, set(calls)):
            self._entered = _entered_by_line(tree, {n: plain[n].lineno for n in calls})
            self._once = _called_once_by_line(tree, {n: plain[n].lineno for n in calls})
            starting = Counter(n.lineno for n in ast.walk(tree) if isinstance(n, _SCOPES))
            self.lone_comprehensions = frozenset(
                n.lineno
                for n in ast.walk(tree)
                if isinstance(n, _COMPREHENSIONS) and starting[n.lineno] == 1
            )

    def entered_from(self, lines: Iterable[int]) -> frozenset[int] | None:
        """The first lines of the frames a step into from one of ``lines`` can enter (empty:
        none, the line calls no function of the code); None if not known.

        Known only for code whose every frame is a plain function called by name or a
        comprehension (no classes, whose methods Python calls implicitly; no lambdas,
        generators or functions passed around, which anything can call)."""
        if self._entered is None:
            return None
        lines = list(lines)
        if not lines:
            return None
        return frozenset(start for line in lines for start in self._entered.get(line, ()))

    def called_once(self, lines: Iterable[int], start: int) -> bool:
        """Whether the frame standing on any of ``lines`` (at least one) calls the function
        whose ``def`` is on line ``start`` at most once before its next line event: each line
        calls it once, directly (not in a comprehension or a lambda, whose frames may call it
        again), so after that call returns, a step into from the line enters it no more.
        Known only where :meth:`entered_from` is."""
        lines = list(lines)
        return bool(lines) and all(start in self._once.get(line, ()) for line in lines)

    def surely_calling(self, lines: Iterable[int]) -> bool:
        """Whether a step into from any of ``lines`` (at least one) enters a frame of the code
        before its frame reaches another line event: the line's statement surely calls a
        function or class of the code whose call runs code of its own
        (:func:`_surely_calling`). Only a call event or an exception can come next."""
        lines = list(lines)
        return bool(lines) and all(line in self._calling for line in lines)

    def surely_entering(self, lines: Iterable[int], bound: frozenset[str]) -> bool:
        """Whether a step into from any of ``lines`` (at least one) surely shows a call event
        next, no exception first, the frame having ``bound`` bound (:func:`_surely_entering`):
        the line calls a function of the code first, found by its name and given arguments
        it takes, that read only bound variables."""
        lines = list(lines)
        return bool(lines) and all(
            line in self._entering and self._entering[line] <= bound for line in lines
        )

    def function_at(self, lines: Iterable[int]) -> int | None:
        """The def line of the plain function whose own frame holds every one of ``lines``
        (None: none does, or there are no lines)."""
        found = {self._function_of.get(line) for line in lines}
        return found.pop() if len(found) == 1 else None

    def returning_to(self, lines: Iterable[int]) -> frozenset[int] | None:
        """The lines that can have called the frame a return on one of ``lines`` leaves (the
        caller stands on one of them); None if a line is not in the own frame of a plain
        function, of a plain method (:func:`_plain_methods`) or of a class body (which only
        its ``class`` statement runs: :func:`_class_body_lines`)."""
        found: set[int] = set()
        lines = list(lines)
        for line in lines:
            function = self._function_of.get(line)
            if function is not None:
                found |= self._calls[function]
            elif line in self._method_of:
                found |= self._method_calls[self._method_of[line]]
            elif line in self._class_header:
                found |= self._class_header[line]
            else:
                return None
        return frozenset(found) if lines else None

    def _method_lines(
        self, tree: ast.Module, owner: dict[int, ast.AST], methods: dict[str, ast.FunctionDef]
    ) -> None:
        """Map each line of a plain method's own frame to its ``def`` line, and the method to
        the lines of its calls (every call of an attribute of its name: ``box.get(...)``)."""
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            method = methods.get(node.func.attr)
            if method is not None:
                lines = self._method_calls.setdefault(method.lineno, set())
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        for line, scope in owner.items():
            if not isinstance(scope, ast.FunctionDef) or methods.get(scope.name) is not scope:
                continue
            self._method_calls.setdefault(scope.lineno, set())
            if line >= scope.body[0].lineno > scope.lineno:
                self._method_of[line] = scope.lineno

    def _init_lines(self, owner: dict[int, ast.AST], inits: dict[int, set[int]]) -> None:
        """Map each line of a plain ``__init__``'s own frame to its ``def`` line, and the
        method to the lines that can call it (:func:`_plain_inits`)."""
        for def_line, calls in inits.items():
            self._method_calls[def_line] = set(calls)
        for line, scope in owner.items():
            if not isinstance(scope, ast.FunctionDef) or scope.lineno not in inits:
                continue
            if line >= scope.body[0].lineno > scope.lineno:
                self._method_of[line] = scope.lineno

    def _own_lines(self, owner: dict[int, ast.AST], functions: set[int]) -> None:
        """Map each line to the plain function whose own frame holds it (``owner``: see
        :func:`_owners`): a line of its body, not of its header (the ``def`` line, defaults
        and annotations, which the defining frame runs; none of a one-line ``def``)."""
        for line, scope in owner.items():
            if not isinstance(scope, ast.FunctionDef) or scope.lineno not in functions:
                continue
            if line >= scope.body[0].lineno > scope.lineno:
                self._function_of[line] = scope.lineno


def _class_body_lines(tree: ast.Module) -> dict[int, frozenset[int]]:
    """Each line a class body's own frame can stand on, mapped to the lines of its ``class``
    statement's header (decorators, the ``class`` line, its bases), where the frame that runs
    the statement stands while the body runs: Python runs a class body only from there. A line
    where another frame's code lies too (a method's body, a lambda, a comprehension) is left
    out, as a return there may be that frame's."""
    others: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            others.update(range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, (ast.Lambda, ast.GeneratorExp, *_COMPREHENSIONS)):
            others.update(_span(node))
    found: dict[int, frozenset[int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        header = frozenset(range(first_line(node), node.body[0].lineno))
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own = range(first_line(statement), statement.body[0].lineno)  # its header
            else:
                own = range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
            found.update((line, header) for line in own if line not in others)
    return found


def _owners(tree: ast.Module) -> dict[int, ast.AST]:
    """Each line inside a frame-opening node, mapped to the innermost one whose code spans it
    (a line with a nested function, class, lambda or comprehension on it belongs to that one);
    lines of the module's own frame are left out."""
    scopes = [node for node in ast.walk(tree) if isinstance(node, _SCOPES)]
    owner: dict[int, ast.AST] = {}
    # outermost first (ast.walk is breadth-first, so an equal span keeps that order)
    for node in sorted(scopes, key=lambda n: -((n.end_lineno or n.lineno) - n.lineno)):
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            owner[line] = node
    return owner


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)
# Nodes that open a frame Python can enter from a line that does not name it.
_ENTERED_ANYWHERE = (ast.ClassDef, ast.Lambda, ast.GeneratorExp, ast.AsyncFunctionDef)


def _frames_opened_only_where_written(tree: ast.Module, plain_called: set[str]) -> bool:
    """Whether every frame the code can open is a comprehension or a plain function that is
    only ever called by name (then the lines that enter each frame are in the code)."""
    for node in ast.walk(tree):
        if isinstance(node, _ENTERED_ANYWHERE):
            return False
        if isinstance(node, ast.FunctionDef) and node.name not in plain_called:
            return False
    return True


def _entered_by_line(tree: ast.Module, plain: dict[str, int]) -> dict[int, set[int]]:
    """For each line, the first lines of the frames a step into from it can enter: the
    functions of ``plain`` (name -> def line) it calls and the comprehensions on it. A call
    counts on each line of its own span and on the first line of its statement (where a
    multi-line statement reports its line events)."""
    entered: dict[int, set[int]] = {}
    for statement, node in _in_statements(tree):
        start: int | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            start = plain.get(node.func.id)
        elif isinstance(node, _COMPREHENSIONS):
            start = node.lineno
        if start is not None and isinstance(node, ast.expr):
            for line in {statement.lineno, *_span(node)}:
                entered.setdefault(line, set()).add(start)
    return entered


def _called_once_by_line(tree: ast.Module, plain: dict[str, int]) -> dict[int, frozenset[int]]:
    """For each line, the functions of ``plain`` (by ``def`` line) the statements on it call
    exactly once in their own frame: one call, outside any comprehension or lambda, and none
    inside one (lines counted as :func:`_entered_by_line` counts them)."""
    direct: dict[int, Counter[int]] = {}
    nested: dict[int, set[int]] = {}
    for statement, node in _in_statements(tree):
        if not isinstance(node, (*_COMPREHENSIONS, ast.Lambda)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
                start = plain.get(inner.func.id)
                if start is not None:
                    for line in {statement.lineno, *_span(node)}:
                        nested.setdefault(line, set()).add(start)
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    for owner in statements:
        for call in _own_calls(owner):
            start = plain.get(call.func.id) if isinstance(call.func, ast.Name) else None
            if start is not None:
                for line in {owner.lineno, *_span(call)}:
                    direct.setdefault(line, Counter())[start] += 1
    return {
        line: frozenset(s for s, n in counts.items() if n == 1 and s not in nested.get(line, ()))
        for line, counts in direct.items()
    }


def _own_calls(statement: ast.stmt) -> Iterator[ast.Call]:
    """The calls ``statement``'s own frame makes: its own nodes' calls, not those inside its
    comprehensions and lambdas (other frames)."""
    todo = [c for c in ast.iter_child_nodes(statement) if not isinstance(c, ast.stmt)]
    while todo:
        node = todo.pop()
        if isinstance(node, (*_COMPREHENSIONS, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt))


def _in_statements(tree: ast.Module) -> Iterator[tuple[ast.stmt, ast.AST]]:
    """Each node of the code with the innermost statement holding it (a call counts on the
    first line of its statement, where a statement over several lines reports its line
    event, besides its own lines)."""
    for statement in ast.walk(tree):
        if isinstance(statement, ast.stmt):
            for node in own_nodes(statement):
                yield statement, node


def own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of ``statement`` that no statement inside it holds: what its own line
    event evaluates (its expressions, lambdas and comprehensions included)."""
    todo = [c for c in ast.iter_child_nodes(statement) if not isinstance(c, ast.stmt)]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt))


def _span(node: ast.expr) -> range:
    """The lines an expression spans."""
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def _plain_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Functions, by name, that are not methods, decorated or generators, and whose name no
    other ``def`` or ``class`` takes."""
    defined: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]] = {}
    in_class: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.setdefault(node.name, []).append(node)
        if isinstance(node, ast.ClassDef):
            in_class.update(id(child) for child in node.body)
    plain: dict[str, ast.FunctionDef] = {}
    for name, nodes in defined.items():
        only = nodes[0] if len(nodes) == 1 else None
        if not isinstance(only, ast.FunctionDef) or id(only) in in_class or only.decorator_list:
            continue
        if not _yields(only):
            plain[name] = only
    return plain


# Method names Python's own code calls on objects handed to it (files, mappings, generators,
# context managers): a method of such a name can be called from a line that does not name it.
_DUCK_TYPED = frozenset(
    {"write", "writelines", "read", "readline", "readlines", "readinto", "flush", "close",
     "fileno", "seek", "tell", "truncate", "isatty", "readable", "writable", "seekable",
     "keys", "send", "throw", "default"}
)  # fmt: skip
_BY_NAME_STRING = frozenset({"methodcaller", "attrgetter"})
_CLASS_DECORATORS = frozenset({"dataclass"})  # decorators that call no method of the class


def _plain_methods(tree: ast.Module, callees: set[int]) -> dict[str, ast.FunctionDef]:
    """Methods, by name, that only a call of an attribute of their name can run: an undecorated
    non-generator ``def`` in the body of a class ``type`` makes (:func:`plain_classes`,
    undecorated or a dataclass), not a dunder nor a name Python calls on objects handed to it
    (:data:`_DUCK_TYPED`), the only ``def`` or ``class`` of its name, and that name never used
    but as the attribute a call calls (never passed, stored, bound or named bare).
    ``callees``: the ids of the nodes the code's calls call."""
    if any(name in _BY_NAME_STRING for node in ast.walk(tree) for name in _names_used(node)):
        return {}  # ``methodcaller("get")`` calls a method its code names in a string
    plain = plain_classes(tree)
    defined: Counter[str] = Counter()
    candidates: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined[node.name] += 1
        if not isinstance(node, ast.ClassDef) or first_line(node) not in plain:
            continue
        if not all(_decorator_name(d) in _CLASS_DECORATORS for d in node.decorator_list):
            continue
        for child in node.body:
            if not isinstance(child, ast.FunctionDef) or child.decorator_list:
                continue
            name = child.name
            dunder = name.startswith("__") and name.endswith("__")
            if not dunder and name not in _DUCK_TYPED and not _yields(child):
                candidates[name] = child
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) in callees:
            continue  # ``box.get(...)``: a call of the method
        for name in _names_used(node):
            candidates.pop(name, None)  # used otherwise: it may be called from anywhere
    return {name: node for name, node in candidates.items() if defined[name] == 1}


# Names and attributes through which code can make an instance without naming its class
# (``type(self)(...)``, ``self.__class__(...)``, ``dataclasses.replace(obj, ...)``; a
# classmethod's ``cls(...)`` is found by its decorator).
_MAKING_NAMES = frozenset({"type", "replace"})
_MAKING_ATTRIBUTES = frozenset({"__class__", "__new__"})


def _plain_inits(tree: ast.Module, callees: set[int]) -> dict[int, set[int]]:
    """The ``__init__`` methods only a call of their class by name can run, by ``def`` line,
    each with the lines that can call it.

    Python runs ``C.__init__`` when ``C`` (or a subclass that defines none of its own) is
    called, ``raise C`` included, and from ``super().__init__(...)`` or ``B.__init__(self)``.
    So for an undecorated ``__init__`` of a class ``type`` makes (:func:`plain_classes`), whose
    subclasses are such classes too, and whose name and theirs the code uses only as a call's
    callee, a base, an ``except`` clause's type, ``raise``'s class, an annotation or
    ``isinstance``'s class (never passed, stored or rebound), these are every line of a call
    of one of those classes and every line of a call of an attribute ``__init__``. Code that
    can make instances another way (``type(self)(...)``, ``dataclasses.replace``, a
    classmethod's ``cls(...)``) gives none.
    ``callees``: the ids of the nodes the code's calls call."""
    if _makes_instances_unnamed(tree):
        return {}
    allowed = set(callees)
    raised: dict[str, set[int]] = {}
    for node in ast.walk(tree):
        kept: list[ast.AST | None] = []
        if isinstance(node, ast.ClassDef):
            kept = list(node.bases)
        elif isinstance(node, ast.ExceptHandler):
            kept = [node.type]
        elif isinstance(node, (ast.arg, ast.AnnAssign)):
            kept = [node.annotation]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kept = [node.returns]
        elif isinstance(node, ast.Call) and _is_type_check(node):
            kept = [node.args[1]]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "__init__":  # ``Base.__init__(self)``: counted below
                kept = [node.func.value]
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Name):
            span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
            raised.setdefault(node.exc.id, set()).update(span)
            kept = [node.exc]
        allowed.update(id(n) for k in kept if k is not None for n in ast.walk(k))
    spoiled = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in allowed}
    spoiled.update(
        name
        for node in ast.walk(tree)
        if not isinstance(node, (ast.Name, ast.Attribute))
        for name in _names_used(node)
    )  # a parameter, an import or a ``global`` of the name
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    defined = Counter(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    )
    plain = plain_classes(tree)
    init_calls = {
        line
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        if node.func.attr == "__init__"
        for line in _span(node)
    }
    found: dict[int, set[int]] = {}
    for node in classes:
        init = _own_init(node)
        if init is None:
            continue
        makers = _family(node, classes, inheriting=True)  # whose call runs this __init__
        family = _family(node, classes)
        clean = all(
            first_line(c) in plain
            and defined[c.name] == 1
            and c.name not in spoiled
            and all(_decorator_name(d) in _CLASS_DECORATORS for d in c.decorator_list)
            for c in family
        )
        if not clean:
            continue
        names = {c.name for c in makers}
        lines = set(init_calls)
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and _called_name(call) in names:
                lines.update(_span(call))
        for name in names:
            lines |= raised.get(name, set())
        found[init.lineno] = lines
    return found


def _makes_instances_unnamed(tree: ast.Module) -> bool:
    """Whether the code can make an instance of a class without calling it by name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _MAKING_NAMES:
            return True
        decorators = getattr(node, "decorator_list", ())
        if any(_decorator_name(d) == "classmethod" for d in decorators):
            return True  # its ``cls(...)``
        if isinstance(node, ast.alias) and (node.asname or node.name) in _MAKING_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _MAKING_ATTRIBUTES:
            return True
        if isinstance(node, ast.Attribute) and node.attr == "replace":
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id == "dataclasses":
                return True
    return False


def _own_init(node: ast.ClassDef) -> ast.FunctionDef | None:
    """The class's own plain ``__init__`` (undecorated, not a generator), if it has one and
    defines no ``__new__``."""
    methods = {
        c.name: c for c in node.body if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    init = methods.get("__init__")
    if "__new__" in methods or not isinstance(init, ast.FunctionDef) or init.decorator_list:
        return None
    return None if _yields(init) else init


def _subclasses(node: ast.ClassDef, classes: list[ast.ClassDef]) -> list[ast.ClassDef]:
    """The classes of the code that name ``node`` as a base."""
    return [
        c for c in classes if any(isinstance(b, ast.Name) and b.id == node.name for b in c.bases)
    ]


def _family(
    node: ast.ClassDef, classes: list[ast.ClassDef], inheriting: bool = False
) -> list[ast.ClassDef]:
    """``node`` and every class of the code below it (``inheriting``: only those that inherit
    its ``__init__``, defining none between)."""
    family, todo = [node], [node]
    while todo:
        for sub in _subclasses(todo.pop(), classes):
            if sub not in family and not (inheriting and _defines(sub, "__init__")):
                family.append(sub)
                todo.append(sub)
    return family


def _defines(node: ast.ClassDef, name: str) -> bool:
    return any(
        isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)) and c.name == name for c in node.body
    )


def _called_name(node: ast.Call) -> str:
    """The name a call calls (empty: it calls something else, an attribute say)."""
    return node.func.id if isinstance(node.func, ast.Name) else ""


def _is_type_check(node: ast.Call) -> bool:
    """``isinstance(x, C)`` or ``issubclass(x, C)``: the class is read, not called."""
    return _called_name(node) in ("isinstance", "issubclass") and len(node.args) == 2


def _decorator_name(node: ast.expr) -> str:
    """The name a decorator ends with (``dataclass`` for ``dataclasses.dataclass(order=True)``)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _yields(function: ast.FunctionDef) -> bool:
    """Whether the function's own body yields (so it is a generator)."""
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _names_used(node: ast.AST) -> list[str]:
    """The names a node uses, binds or declares, where one can refer to a function."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.alias):
        return [node.asname or node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    return []


def _reaches_names_dynamically(tree: ast.Module) -> bool:
    """Whether the code can look a function up without naming it (then no list is sure)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _DYNAMIC_NAMES:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _DYNAMIC_ATTRIBUTES:
            return True
    return False


# Statements whose value a line event is surely followed by evaluating.
_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)
_NOT_OWN = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SUSPENDING = (ast.Yield, ast.YieldFrom, ast.Await)


def _surely_calling(tree: ast.Module, owner: dict[int, ast.AST]) -> frozenset[int]:
    """The lines whose line event is surely followed by a call event (or an exception):
    the only statement starting on the line, on that line alone, a simple statement of a
    function, class or module frame (no lambda or comprehension shares the line), that does
    not suspend, and whose value surely calls (outside a lambda, a comprehension, a
    conditional branch or a short-circuit) a name of :func:`_entered_names`. Calls to other
    functions that come first, and exceptions, leave only call and exception events next;
    where the name is not bound yet, the call raises ``NameError``."""
    names = _entered_names(tree)
    if not names:
        return frozenset()
    found: set[int] = set()
    for node in alone_on_their_lines(tree):
        if not isinstance(node, _SIMPLE) or node.value is None:
            continue
        line = node.lineno
        if isinstance(owner.get(line), _NOT_OWN):
            continue
        if any(isinstance(inner, _SUSPENDING) for inner in ast.walk(node)):
            continue
        if any(
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id in names
            for inner in _surely_evaluated(node.value)
        ):
            found.add(line)
    return frozenset(found)


def _surely_entering(tree: ast.Module, owner: dict[int, ast.AST]) -> dict[int, frozenset[str]]:
    """The lines whose line event is surely followed by a call event, with no exception
    first, as long as the names they map to are bound: the only statement on its line, of a
    function or the module's frame, whose value is a call of a function of
    :func:`_entered_names` defined by a top-level statement before the one holding the line
    (so its name is bound whenever the line runs), with arguments that cannot raise (constants,
    variables, and lists, tuples, sets and dicts of them with constant keys) and that match
    its parameters (no ``*`` or ``**``, no keywords, as many as it takes). The names mapped to
    are the variables the arguments read."""
    names = _entered_names(tree)
    functions = {
        node.name: (index, node)
        for index, node in enumerate(tree.body)
        if isinstance(node, ast.FunctionDef) and node.name in names
    }
    statement_of = {
        line: index
        for index, node in enumerate(tree.body)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    found: dict[int, frozenset[str]] = {}
    for node in alone_on_their_lines(tree):
        if not isinstance(node, _SIMPLE) or isinstance(node, ast.AugAssign):
            continue
        call = node.value
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            continue
        line = node.lineno
        if isinstance(owner.get(line), _NOT_OWN) or call.func.id not in functions:
            continue
        index, function = functions[call.func.id]
        if statement_of.get(line, -1) <= index or not _takes(function.args, len(call.args)):
            continue
        if call.keywords:
            continue
        read = _read_safely(call.args)
        if read is not None:
            found[line] = read
    return found


def _takes(parameters: ast.arguments, given: int) -> bool:
    """Whether a function with ``parameters`` takes ``given`` positional arguments alone."""
    if parameters.vararg or parameters.kwarg or parameters.kwonlyargs:
        return False
    positional = len(parameters.posonlyargs) + len(parameters.args)
    return positional - len(parameters.defaults) <= given <= positional


def _read_safely(values: Iterable[ast.expr]) -> frozenset[str] | None:
    """The variables ``values`` read, if evaluating them can raise only for an unbound one:
    constants, names, and displays of them (dict keys constants); None otherwise."""
    read: set[str] = set()
    todo = list(values)
    while todo:
        value = todo.pop()
        if isinstance(value, ast.Name):
            read.add(value.id)
        elif isinstance(value, ast.List | ast.Tuple | ast.Set):
            if isinstance(value, ast.Set) and not all(
                isinstance(e, ast.Constant) for e in value.elts
            ):
                return None  # an element may be unhashable
            todo.extend(value.elts)
        elif isinstance(value, ast.Dict):
            if not all(isinstance(k, ast.Constant) for k in value.keys):
                return None
            todo.extend(v for v in value.values if v is not None)
        elif not isinstance(value, ast.Constant):
            return None
    return frozenset(read)


def _surely_evaluated(expression: ast.expr) -> Iterator[ast.AST]:
    """The nodes of ``expression`` evaluated whenever it is: not the bodies of lambdas and
    comprehensions, only the test of a conditional expression, the first operand of ``and``
    and ``or``, the first comparison of a chain."""
    todo: list[ast.AST] = [expression]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, _NOT_OWN):
            continue
        if isinstance(node, ast.IfExp):
            todo.append(node.test)
        elif isinstance(node, ast.BoolOp):
            todo.append(node.values[0])
        elif isinstance(node, ast.Compare):
            todo.extend([node.left, node.comparators[0]])
        else:
            todo.extend(ast.iter_child_nodes(node))


def _entered_names(tree: ast.Module) -> frozenset[str]:
    """Names whose call runs code of the program: a function or class defined in the module's
    own body, not decorated, bound nowhere else in the code and not a builtin's name, so that
    a call by the name anywhere is its call (or a ``NameError`` before its definition). A
    function must not be a generator (whose call runs nothing yet); a class must be one
    ``type`` makes (:func:`.module_constants.plain_classes`) with an ``__init__`` or
    ``__new__`` of its own."""
    bindings = Counter(bound_names(tree))
    plain = plain_classes(tree)
    found: set[str] = set()
    for node in tree.body:
        if bindings[getattr(node, "name", "")] != 1 or getattr(node, "decorator_list", True):
            continue
        if node.name in _BUILTINS:  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.FunctionDef) and not _yields(node):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef) and first_line(node) in plain:
            own = {
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef) and not item.decorator_list
            }
            if own & {"__init__", "__new__"}:
                found.add(node.name)
    return frozenset(found)


def bound_names(tree: ast.AST) -> Iterator[str]:
    """Every binding of a name in the code, one per binding: stores and deletes, parameters,
    imports, ``def`` and ``class`` statements, handlers, patterns, declarations."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, _NAMED_BINDERS) and isinstance(node.name, str):
            yield node.name
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest
        elif isinstance(node, ast.alias):  # ``import a.b`` binds ``a``
            yield node.asname or node.name.split(".")[0]
        elif isinstance(node, ast.arg | ast.Global | ast.Nonlocal):
            yield from _names_used(node)
