"""Map predicted source lines back to line numbers, following the predicted call stack.

The language carries a state's source line as text only. An IDE needs a line number, so
:class:`LineTracker` follows a trajectory state by state, keeps a predicted stack of frames, and
resolves each SRC against the code context with :meth:`SourceMap.resolve`:

1. Candidates are the context lines whose text equals SRC exactly (indentation included); if
   none, lines equal after stripping surrounding whitespace; if still none, the state is
   unresolved (``None``).
2. Several candidates: keep those inside the scope the frame is expected to be in (the
   innermost ``def`` or ``class`` around the frame's lines), when any is.
3. Then, going forward: the first candidate at or after the frame's current line; if none, the
   first one (a loop jumped back). Going backward (inverse states): the last candidate at or
   before the current line; if none, the last one.
4. A state that opens a frame (a call state, or an inverse return state stepping back into a
   callee) prefers lines of a function whose name (or, for a method, whose class's name)
   appears in the calling line; a call state also prefers lines that start a scope (``def``,
   ``class`` or a decorator).

Frames: a call state pushes a frame, a return state pops it once the next state arrives (forward);
an inverse return state pushes and an inverse call state pops (backward). After a breakpoint jump
the depth is unknown: the tracker returns to the innermost frame on its stack with the target's
scope, or else pushes a new frame for it (always a new frame when the jump lands on a call).
"""

from __future__ import annotations

import ast
import re
import sys
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from .language import Action, State
from .tokens import ActionKind, StateKind

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINES = re.compile(r"\s*(@|(async\s+)?def\s|class\s)")  # a header, not a call

# Methods the interpreter calls without their name on the line, and what a line that may call
# them mentions (a guess from the code: whether it does depends on the values' types).
_FORMATS = r"\b(print|str|repr|format)\s*\(|\.format\s*\(|\bf['\"]"
_ITERATES = r"\bfor\b.*\bin\b|\b(list|tuple|set|sorted|sum|min|max|enumerate|zip|dict)\s*\("
_COMPARES = r"[<>]|\bsorted\s*\(|\.sort\s*\(|\b(min|max)\s*\("
_IMPLICIT = {
    "__repr__": _FORMATS,
    "__str__": _FORMATS,
    "__format__": _FORMATS,
    "__iter__": _ITERATES,
    "__next__": r"\bnext\s*\(|" + _ITERATES,
    "__len__": r"\blen\s*\(|\b(if|while|not|bool)\b",
    "__bool__": r"\b(if|while|not|and|or|bool)\b",
    "__contains__": r"\bin\b",
    "__getitem__": r"\w\s*\[",
    "__setitem__": r"\]\s*=(?!=)",
    "__eq__": r"==|!=|\bin\b|\.(index|count|remove)\s*\(",
    "__ne__": r"!=",
    "__lt__": _COMPARES,
    "__le__": _COMPARES,
    "__gt__": _COMPARES,
    "__ge__": _COMPARES,
    "__hash__": r"\bhash\s*\(|\b(set|dict)\s*\(|\{",
    "__add__": r"\+|\bsum\s*\(",
    "__radd__": r"\+|\bsum\s*\(",
    "__iadd__": r"\+=",
    "__sub__": r"-",
    "__rsub__": r"-",
    "__neg__": r"-",
    "__mul__": r"\*",
    "__rmul__": r"\*",
    "__truediv__": r"/",
    "__floordiv__": r"//",
    "__mod__": r"%",
    "__abs__": r"\babs\s*\(",
    "__enter__": r"\bwith\b",
    "__exit__": r"\bwith\b",
}
_PROPERTIES = frozenset({"property", "cached_property"})
_CALLS_ANY = re.compile(r"\w\s*\(")  # a wrapper calls the function it wraps through a name


@dataclass(frozen=True)
class Scope:
    """A function or class body: where a frame's lines live."""

    start: int  # first line of the header (a decorator, or the def / class line)
    header: int  # the def / class line
    end: int
    name: str


# Expressions that run in a frame of their own: generator expressions always; list, set and dict
# comprehensions before Python 3.12, which inlines them (PEP 709).
_FRAMED: tuple[type[ast.AST], ...] = (
    (ast.GeneratorExp,)
    if sys.version_info >= (3, 12)
    else (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)
)


def _framed_calls(tree: ast.AST) -> set[tuple[int, str]]:
    """(line, name) of each call by name made inside a comprehension that has its own frame:
    a function called there runs one frame deeper than the line's own frame."""
    found: set[tuple[int, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, _FRAMED):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    func = inner.func
                    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                    if name:
                        found.add((inner.lineno, name))
    return found


def yields(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``function`` itself yields (not a function or class nested in it)."""
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return False


class SourceMap:
    """Line texts and scopes of a code context (lines numbered from 1)."""

    def __init__(self, code: str) -> None:
        self.lines = code.split("\n")
        self.by_text: dict[str, list[int]] = {}
        self.by_stripped: dict[str, list[int]] = {}
        for number, text in enumerate(self.lines, start=1):
            self.by_text.setdefault(text, []).append(number)
            self.by_stripped.setdefault(text.strip(), []).append(number)
        self.scopes: list[Scope] = []
        self.generators: set[int] = set()  # the def lines of functions with a yield of their own
        # the lines each loop spans (its header to its last line): where a frame can go back
        self.loops: list[tuple[int, int]] = []
        try:
            tree = ast.parse(code)
        except SyntaxError:
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                end = node.end_lineno or node.lineno
                self.scopes.append(Scope(first, node.lineno, end, node.name))
                if not isinstance(node, ast.ClassDef) and yields(node):
                    self.generators.add(node.lineno)
            elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
                self.loops.append((node.lineno, node.end_lineno or node.lineno))
        self.scopes.sort(key=lambda s: (s.start, -s.end))
        self.scope_starts = {s.start: s for s in self.scopes}
        # functions run without a call by name: a method the interpreter calls for an operator,
        # a property read or set, a decorator's wrapper; by the lines that may run them
        self._implicit: list[tuple[Scope, re.Pattern[str]]] = []
        self._decorating: dict[int, list[Scope]] = {}  # a decorator line -> what it calls
        self._wrapping: dict[Scope, list[tuple[Scope, re.Pattern[str]]]] = {}
        if tree is not None:
            self._read_implicit(tree)
        self._calls: dict[Scope | None, dict[Scope, list[int]]] = {}
        self._framed_calls = _framed_calls(tree) if tree is not None else set()

    def _read_implicit(self, tree: ast.Module) -> None:
        """List the functions that lines run without naming them (see ``_IMPLICIT``):
        methods behind operators and builtins, properties (``.name`` read, or assigned for a
        setter), and decorators: ``@deco`` calls ``deco`` on its line (``@deco(...)`` the
        functions ``deco`` defines), a call of the decorated function by name runs the
        functions the decorator defines (its wrapper), and those call the function through
        the decorator's parameter."""
        by_node = {(s.header, s.name): s for s in self.scopes}
        named = {s.name: s for s in self.scopes if not self._is_class(s)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            scope = by_node[(node.lineno, node.name)]
            if isinstance(node, ast.ClassDef):
                for method in node.body:
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                        self._read_method(by_node[(method.lineno, method.name)], method)
                continue
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                deco = named.get(called.id) if isinstance(called, ast.Name) else None
                if deco is None:
                    continue
                inner = self._defined_in(deco)
                made = inner if isinstance(decorator, ast.Call) else [deco]
                self._decorating.setdefault(decorator.lineno, []).extend(made)
                calls = re.compile(rf"\b{re.escape(node.name)}\s*\(")
                for wrapper in inner:
                    self._implicit.append((wrapper, calls))
                    self._wrapping.setdefault(wrapper, []).append((scope, _CALLS_ANY))

    def _read_method(self, scope: Scope, method: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        pattern = _IMPLICIT.get(method.name)
        if pattern is not None:
            self._implicit.append((scope, re.compile(pattern)))
        for decorator in method.decorator_list:
            name = decorator.id if isinstance(decorator, ast.Name) else None
            name = name or (decorator.attr if isinstance(decorator, ast.Attribute) else None)
            if name in _PROPERTIES:
                read = rf"\.{re.escape(method.name)}\b(?!\s*\()"
                self._implicit.append((scope, re.compile(read)))
            elif name == "setter":
                write = rf"\.{re.escape(method.name)}\s*(//|[-+*/%])?=(?!=)"
                self._implicit.append((scope, re.compile(write)))

    def _defined_in(self, outer: Scope) -> list[Scope]:
        """The functions defined anywhere inside ``outer``."""
        return [
            s
            for s in self.scopes
            if outer.header < s.start and s.end <= outer.end and not self._is_class(s)
        ]

    def scope_of(self, line: int) -> Scope | None:
        """The innermost function or class whose body holds ``line`` (None: module level).

        Header lines (decorators, ``def``) belong to the enclosing scope: that is where the
        ``def`` statement runs. A call state at a header line opens the function's own scope.
        """
        best = None
        for scope in self.scopes:
            if scope.header < line <= scope.end and (
                best is None or scope.end - scope.start < best.end - best.start
            ):
                best = scope
        return best

    def calls_from(self, scope: Scope | None) -> dict[Scope, list[int]]:
        """The scopes that lines directly in ``scope`` (None: module level) run, with those
        lines: a function called by name; a class's ``__init__`` where the class is called (its
        body does not run then); a class body at its ``class`` line, which runs it; what a
        decorator line runs, and functions run without a call by name (``_read_implicit``).
        A ``def`` line is not a call."""
        cached = self._calls.get(scope)
        if cached is not None:
            return cached
        start, end = (scope.start, scope.end) if scope else (1, len(self.lines))
        found: dict[Scope, list[int]] = {}
        implicit = self._implicit + (self._wrapping.get(scope, []) if scope else [])
        for number in range(start, end + 1):
            text = self.lines[number - 1]
            if self.scope_of(number) != scope:
                continue
            if _DEFINES.match(text):
                body = next((c for c in self.scopes if c.header == number), None)
                if body is not None and self._is_class(body):
                    found.setdefault(body, []).append(number)
                for made in self._decorating.get(number, ()):
                    found.setdefault(made, []).append(number)
                continue
            for target in self.scopes:
                if re.search(rf"\b{re.escape(target.name)}\s*\(", text):
                    if not self._is_class(target):
                        found.setdefault(target, []).append(number)
                    elif (init := self._initializer(target)) is not None:
                        found.setdefault(init, []).append(number)
            for target, pattern in implicit:
                if target != scope and pattern.search(text):
                    lines = found.setdefault(target, [])
                    if number not in lines:
                        lines.append(number)
        self._calls[scope] = found
        return found

    def goes_back(self, line: int, to: int) -> bool:
        """Whether a frame standing on ``line`` can come to the earlier line ``to`` again: a
        loop holds both (one frame's lines run in order otherwise)."""
        return any(start <= to and line <= end for start, end in self.loops)

    def _is_class(self, scope: Scope) -> bool:
        return self.lines[scope.header - 1].lstrip().startswith("class ")

    def called_in_comprehension(self, line: int, target: Scope) -> bool:
        """Whether ``line`` calls ``target`` (a class, for its ``__init__``) from inside a
        comprehension with a frame of its own."""
        names = {target.name}
        if target.name == "__init__":
            owner = self.scope_of(target.header)
            if owner is not None:
                names.add(owner.name)
        return any((line, name) in self._framed_calls for name in names)

    def _initializer(self, scope: Scope) -> Scope | None:
        """The ``__init__`` defined directly in ``scope`` when it is a class, else None."""
        if not self._is_class(scope):
            return None
        return next(
            (
                s
                for s in self.scopes
                if s.name == "__init__"
                and scope.header < s.header <= scope.end
                and self.scope_of(s.header) == scope
            ),
            None,
        )

    def candidates(self, src: str) -> list[int]:
        exact = self.by_text.get(src)
        if exact:
            return exact
        return self.by_stripped.get(src.strip(), []) if src.strip() else []

    def resolve(
        self,
        src: str,
        *,
        scope: Scope | bool | None = False,
        near: int | None = None,
        backward: bool = False,
        new_frame: bool = False,
        call: bool = False,
        caller_text: str | None = None,
    ) -> int | None:
        """The line that shows ``src``; ``scope=False`` means no scope is expected."""
        found = self.candidates(src)
        if len(found) <= 1:
            return found[0] if found else None
        if new_frame:
            if call:
                found = [n for n in found if n in self.scope_starts] or found
            if caller_text is not None:
                names = set(_IDENT.findall(caller_text))
                named = [n for n in found if self._scope_names(n, call) & names]
                found = named or found
        elif scope is not False:
            inside = [n for n in found if self.scope_of(n) == scope]
            found = inside or found
        if near is None:
            return found[-1] if backward else found[0]
        if backward:
            k = bisect_right(found, near)
            return found[k - 1] if k > 0 else found[-1]
        k = bisect_left(found, near)
        return found[k] if k < len(found) else found[0]

    def _scope_names(self, line: int, call: bool) -> set[str]:
        """Names a calling line would mention to run ``line``'s function: the function's own,
        and for a method its class's (``Point(1)`` runs ``Point.__init__``)."""
        scope = self.scope_starts.get(line) if call else None
        scope = scope or self.scope_of(line)
        if scope is None:
            return set()
        names = {scope.name}
        outer = self.scope_of(scope.start)
        if outer is not None:
            names.add(outer.name)
        return names


@dataclass
class Frame:
    scope: Scope | None
    line: int | None
    named: bool = True  # opened on a def or class line, not by a comprehension or lambda
    guessed: bool = False  # rebuilt from the code after a jump, not seen opened


@dataclass(frozen=True)
class Located:
    """Where a predicted state stands: its context line (None if unresolved) and stack depth."""

    line: int | None
    depth: int
    stack: tuple[int | None, ...]  # current line of every frame, outermost first
    named: tuple[bool, ...] = ()  # per frame: opened on a def or class line (see Frame)


@dataclass
class LineTracker:
    """Follows one trajectory, state by state, and locates each state."""

    source: SourceMap
    stack: list[Frame] = field(default_factory=list)
    _pop_pending: bool = False

    def snapshot(self) -> LineTracker:
        """A copy to return to later (the source map is shared, the frames are copied)."""
        frames = [Frame(f.scope, f.line, f.named, f.guessed) for f in self.stack]
        return LineTracker(self.source, frames, self._pop_pending)

    def locate(self, state: State, action: Action | None = None) -> Located:
        """Locate ``state``, reached by ``action`` from the previous state (None for the first)."""
        kind = state.kind
        if kind.is_exit:
            self.stack.clear()
            self._pop_pending = False
            return Located(line=None, depth=0, stack=())
        assert state.src is not None
        if self._pop_pending and self.stack:
            self.stack.pop()
        self._pop_pending = False
        backward = kind.is_inverse
        opens = kind is StateKind.CALL or (kind is StateKind.INV_RETURN and action is not None)
        if action is not None and action.kind is ActionKind.BREAKPOINT:
            line = self._breakpoint(state.src, kind is StateKind.CALL)
        elif opens or not self.stack:
            caller = self.stack[-1] if self.stack else None
            caller_text = self._text(caller.line) if caller and caller.line else None
            line = self.source.resolve(
                state.src,
                new_frame=caller is not None,
                call=kind is StateKind.CALL,
                caller_text=caller_text,
                near=caller.line if caller else None,
                backward=backward,
            )
            scope = self._frame_scope(line, first=action is None)
            named = not self.stack or self._headed(line) is not None
            self.stack.append(Frame(scope, line, named))
        else:
            frame = self.stack[-1]
            line = self.source.resolve(
                state.src, scope=frame.scope, near=frame.line, backward=backward
            )
            if line is not None:
                self._unwind_to(line)
                self.stack[-1].line = line
        if kind in (StateKind.RETURN, StateKind.INV_CALL):
            self._pop_pending = True
        return Located(
            line=line,
            depth=len(self.stack) - 1,
            stack=tuple(f.line for f in self.stack),
            named=tuple(f.named for f in self.stack),
        )

    def _breakpoint(self, src: str, call: bool) -> int | None:
        current = self.stack[-1] if self.stack else None
        line = self.source.resolve(
            src,
            scope=current.scope if current else False,
            near=current.line if current else None,
            new_frame=call,
            call=call,
        )
        if call:  # a breakpoint on a def line stopped at a call: a new frame
            callee = self._frame_scope(line, first=False)
            # a function's own call comes from a caller that calls it by name (a generator's
            # or a comprehension's frame starts where it is iterated, not where it is called)
            named = callee is not None and self._headed(line) == callee
            if named and callee.header not in self.source.generators:  # type: ignore[union-attr]
                self._place_caller(callee)
            # not on a def line: a comprehension's, a lambda's or a resumed generator's frame
            headed = line is None or self._headed(line) is not None
            self.stack.append(Frame(callee, line, headed))
            return line
        scope = self._scope(line)
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].scope == scope:
                del self.stack[depth + 1 :]
                self.stack[depth].line = line
                return line
        self._place_caller(scope)
        self.stack.append(Frame(scope, line))
        return line

    def _unwind_to(self, line: int) -> None:
        """A frame's next state stands on ``line``, outside its code: where that frame, and
        any above the innermost one whose code holds the line, were rebuilt after a jump
        (:meth:`_place_caller`), the guess was wrong and they have returned (a decorator's
        wrapper the prediction went on past, back in the module that made the call)."""
        header = self._headed(line)  # a frame's header line is its own too
        holders = (self._scope(line), *((header,) if header is not None else ()))
        depth = len(self.stack) - 1
        while depth > 0 and self.stack[depth].guessed and self.stack[depth].scope not in holders:
            depth -= 1
        if self.stack[depth].scope in holders:
            del self.stack[depth + 1 :]

    def _place_caller(self, callee: Scope | None) -> None:
        """After a jump into a new frame, rebuild the frames in between from the code: the
        shortest chain of calls from the caller's function to ``callee`` (a line in each function
        on the way that calls the next by name; the caller's own call at or after where it
        stood, when it has one). The caller is the innermost frame with such a chain; frames
        above it, which cannot reach the callee, have returned. The caller then stands on its
        call, and the functions the jump went through are on the stack, as a real run shows
        them."""
        if callee is None:
            return
        for depth in range(len(self.stack) - 1, -1, -1):
            caller = self.stack[depth]
            if caller.line is None:
                return
            returned = self.stack[depth + 1].scope if depth + 1 < len(self.stack) else None
            path = self._call_path(caller.scope, callee, caller.line, returned)
            if path:  # the frames above it cannot reach the callee: they have returned
                del self.stack[depth + 1 :]
                caller.line = path[0][0]
                for k, (line, target) in enumerate(path):
                    if self.source.called_in_comprehension(line, target):
                        self.stack.append(Frame(self._scope(line), line, False, True))
                    if k + 1 < len(path):
                        following = path[k + 1][0]
                        self.stack.append(Frame(self._scope(following), following, True, True))
                return

    def _call_path(
        self, start: Scope | None, callee: Scope, near: int, returned: Scope | None = None
    ) -> list[tuple[int, Scope]]:
        """Call lines from ``start`` to ``callee``, at most four calls deep. The caller's own
        call is its first line at or after ``near`` (else, where a loop holds both, its first
        line before: the loop goes round) that reaches the callee, directly or not: the run
        goes on from where the caller stood, so that is the call the breakpoint stops in
        first; a caller with no such line returns before the callee runs. ``returned``: the
        function the caller's line called, whose frame has returned (that call is done, other
        calls of the line may not be). Below it, the shortest chain."""
        calls = sorted(
            ((line, target) for target, lines in self.source.calls_from(start).items()
             for line in lines),
            key=lambda call: (call[0], call[1].start),
        )  # fmt: skip
        done = [c for c in calls if c[0] < near or (c[0] == near and c[1] == returned)]
        ahead = [c for c in calls if c not in done]
        ordered = ahead + [c for c in done if self.source.goes_back(near, c[0])]
        reached: dict[Scope, list[tuple[int, Scope]] | None] = {}
        for line, target in ordered:
            if target == callee:
                return [(line, target)]
            if target not in reached:
                reached[target] = self._shortest_chain(target, callee, 3, start)
            rest = reached[target]
            if rest is not None:
                return [(line, target), *rest]
        return []

    def _shortest_chain(
        self, start: Scope, callee: Scope, depth: int, outer: Scope | None
    ) -> list[tuple[int, Scope]] | None:
        """Calls (line, callee) from ``start`` to ``callee``, breadth first, at most ``depth``."""
        frontier: list[tuple[Scope, list[tuple[int, Scope]]]] = [(start, [])]
        seen: set[Scope | None] = {start, outer}
        for _ in range(depth):
            following: list[tuple[Scope, list[tuple[int, Scope]]]] = []
            for scope, path in frontier:
                for target, lines in self.source.calls_from(scope).items():
                    if target == callee:
                        return [*path, (lines[0], target)]
                    if target in seen:
                        continue
                    seen.add(target)
                    following.append((target, [*path, (lines[0], target)]))
            frontier = following
        return None

    def _frame_scope(self, line: int | None, first: bool) -> Scope | None:
        """The scope of a frame opened at ``line``: the function whose header it is, else the
        scope around it (comprehensions, lambdas, resumed generators). The first state of a
        trajectory at line 1 is a script's module frame (line 1 may also be a ``def``)."""
        if line is None or (first and line == 1):
            return None
        header = self._headed(line)
        return header if header is not None else self._scope(line)

    def _headed(self, line: int | None) -> Scope | None:
        """The function or class whose ``def`` (decorators, header) is ``line``, if any."""
        if line is None:
            return None
        header = self.source.scope_starts.get(line)
        if header is None:
            header = next((s for s in self.source.scopes if s.header == line), None)
        return header

    def _scope(self, line: int | None) -> Scope | None:
        return self.source.scope_of(line) if line is not None else None

    def _text(self, line: int) -> str:
        return self.source.lines[line - 1] if 0 < line <= len(self.source.lines) else ""
