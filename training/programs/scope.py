"""Types, scopes and code emission for the program generator.

Why: every generated program must run. The generator only reads a variable that is bound on
every path to the read, with the type the expression needs, and it only indexes, pops or
divides where a guard or a known fact (``xs`` is non-empty inside ``if xs:``, ``i`` indexes
``xs`` inside ``for i in range(len(xs))``) makes it safe. This module keeps that bookkeeping:
the variables in scope with their types, the facts, the collections that must not change
while a loop runs over them, and the lines written so far.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .names import LOOP_NAMES, RESERVED, VAR_NAMES

INT = "int"
BOOL = "bool"
FLOAT = "float"
STR = "str"
LINT = "list[int]"
LSTR = "list[str]"
DSI = "dict[str, int]"
DII = "dict[int, int]"
DSL = "dict[str, list[int]]"
SINT = "set[int]"
PAIR = "tuple[int, int]"

SCALARS = (INT, BOOL, FLOAT, STR)
COLLECTIONS = (LINT, LSTR, DSI, DII, DSL, SINT)
ALL_TYPES = (*SCALARS, *COLLECTIONS, PAIR)
# Types a function may take or return.
PARAM_TYPES = (INT, STR, LINT, LSTR, DSI, DII, SINT, BOOL)
RETURN_TYPES = (INT, BOOL, STR, LINT, LSTR, DSI, DII, SINT, PAIR, FLOAT)


def elem_of(t: str) -> str:
    """The type a ``for`` loop over a value of type ``t`` binds (keys for dicts)."""
    return {LINT: INT, LSTR: STR, STR: STR, SINT: INT, DSI: STR, DII: INT, DSL: STR}[t]


def is_obj(t: str) -> bool:
    return t.startswith("obj:")


# Operator precedence, as Python's grammar orders it (higher binds tighter).
P_LAMBDA, P_IFEXP, P_OR, P_AND, P_NOT, P_CMP = 0, 1, 2, 3, 4, 5
P_BOR, P_BXOR, P_BAND, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM = 6, 7, 8, 10, 11, 12, 13, 16


@dataclass(frozen=True)
class E:
    """An expression's text and the precedence of its outermost operator."""

    text: str
    prec: int = P_ATOM

    def at(self, prec: int) -> str:
        """The text, parenthesized if it binds less tightly than ``prec`` requires."""
        return self.text if self.prec >= prec else f"({self.text})"

    @property
    def atom(self) -> str:
        return self.at(P_ATOM)


def str_lit(s: str) -> str:
    """A string literal, double-quoted where that needs no escapes (as formatters write it)."""
    if '"' not in s and "\\" not in s and s.isprintable():
        return f'"{s}"'
    return repr(s)


def lit(value: object) -> str:
    """Python source for a literal value (deterministic: sets are written sorted)."""
    if isinstance(value, str):
        return str_lit(value)
    if isinstance(value, bool | int | float | bytes) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({lit(value[0])},)"
        return "(" + ", ".join(lit(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    if isinstance(value, set | frozenset):
        if not value:
            return "set()"
        return "{" + ", ".join(lit(v) for v in sorted(value)) + "}"  # type: ignore[type-var]
    raise TypeError(f"no literal for {type(value).__name__}")


@dataclass
class Var:
    """A name in scope."""

    name: str
    type: str
    loop_depth: int  # how many loops enclosed its binding
    kind: str = "local"  # local | param | loop | attr | global
    shared: bool = False  # the caller may hold this object: never mutate it in place
    char: bool = False  # a one-character string (a loop over a string binds it)
    uses: int = 0


@dataclass
class Sig:
    """A function (or method) the generated code may call."""

    name: str
    params: list[tuple[str, str]]
    ret: str | None
    kind: str = "plain"  # plain | recursive | generator | raises | method
    raises: str | None = None  # the exception it may raise
    elem: str | None = None  # a generator's element type
    bound: dict[int, str] = field(default_factory=dict)  # arg index -> wrapper ("min({}, 6)")
    calls: int = 0


@dataclass
class ClassInfo:
    name: str
    init_params: list[tuple[str, str]]
    attrs: dict[str, str]
    methods: list[Sig]
    var_names: tuple[str, ...]


@dataclass
class Module:
    """What a program defines at module level, visible to every function."""

    names: set[str] = field(default_factory=set)
    constants: list[Var] = field(default_factory=list)
    helpers: list[Sig] = field(default_factory=list)
    classes: list[ClassInfo] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    constant_lines: list[str] = field(default_factory=list)
    # source blocks in order of definition
    blocks: list[str] = field(default_factory=list)


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?")


class Ctx:
    """The state of one function body (or of module-level code) being generated."""

    def __init__(
        self,
        rng: random.Random,
        module: Module,
        *,
        level: str = "function",  # function | entry | module | method | generator
        ret: str | None = None,
        indent: int = 1,
        budget: int = 8,
    ) -> None:
        self.rng = rng
        self.module = module
        self.level = level
        self.ret = ret
        self.indent = indent
        self.base_indent = indent
        self.budget = budget
        self.lines: list[str] = []
        self.vars: dict[str, Var] = {}
        self.name_types: dict[str, str] = {}
        self.loop_depth = 0
        self.loops: list[str] = []  # kinds of the enclosing loops: for | while | drain
        self.frozen: dict[str, int] = {}
        self.facts: dict[tuple[str, ...], int] = {}
        self.mutlog: list[str] = []
        self.focus: str | None = None
        self.prints_left = 2 if level in ("entry", "module") else 0
        self.catching: list[str] = []  # exceptions handled by enclosing try blocks
        self.callables: list[Sig] = list(module.helpers)
        self.self_class: ClassInfo | None = None
        self.yield_type: str | None = None
        self.yields = 0
        self.returns_early = 0
        self.keep: set[str] = set()  # lines that must survive dead-store pruning
        for const in module.constants:
            self.vars[const.name] = const
            self.name_types[const.name] = const.type

    # ------------------------------------------------------------------ emission

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)
        self.mark_uses(line)

    def mark_uses(self, text: str) -> None:
        for name in _NAME_RE.findall(text):
            var = self.vars.get(name)
            if var is not None:
                var.uses += 1

    @property
    def nesting(self) -> int:
        return self.indent - self.base_indent

    @contextmanager
    def block(
        self,
        *,
        loop: str | None = None,
        freeze: tuple[str, ...] = (),
        facts: tuple[tuple[str, ...], ...] = (),
        catching: tuple[str, ...] = (),
    ) -> Iterator[None]:
        """An indented block; names bound inside go out of scope after it."""
        saved_vars = dict(self.vars)
        saved_facts = dict(self.facts)
        saved_focus = self.focus
        mark = len(self.mutlog)
        self.indent += 1
        if loop is not None:
            self.loop_depth += 1
            self.loops.append(loop)
        for name in freeze:
            self.frozen[name] = self.frozen.get(name, 0) + 1
        for fact in facts:
            self.facts[fact] = self.loop_depth
        self.catching.extend(catching)
        start = len(self.lines)
        try:
            yield
            if len(self.lines) == start:
                self.emit("pass")
        finally:
            for _ in catching:
                self.catching.pop()
            for name in freeze:
                self.frozen[name] -= 1
                if not self.frozen[name]:
                    del self.frozen[name]
            if loop is not None:
                self.loop_depth -= 1
                self.loops.pop()
            self.indent -= 1
            changed = set(self.mutlog[mark:])
            self.vars = {n: v for n, v in saved_vars.items()}
            self.facts = {f: d for f, d in saved_facts.items() if not _mentions(f, changed)}
            self.focus = saved_focus

    # ------------------------------------------------------------------ variables

    def readable(self, t: str) -> list[Var]:
        return [v for v in self.vars.values() if v.type == t]

    def pick(self, t: str, *, avoid: tuple[str, ...] = ()) -> Var | None:
        """A variable of type ``t``, preferring the focus, unused ones and parameters."""
        cands = [v for v in self.vars.values() if v.type == t and v.name not in avoid]
        if not cands:
            return None
        weights = []
        for v in cands:
            w = 1.0
            if v.name == self.focus:
                w += 8
            if v.uses == 0:
                w += 3
            if v.kind in ("param", "loop"):
                w += 1.5
            if v.kind == "global":
                w *= 0.4
            weights.append(w)
        return self.rng.choices(cands, weights)[0]

    def can_write(self, name: str) -> bool:
        """May ``name`` be rebound here (not iterated over, not a loop counter)?"""
        var = self.vars.get(name)
        if var is None or var.kind in ("global", "loop") or name in self.frozen:
            return False
        return self._facts_allow(name)

    def can_mutate(self, name: str, *, shrink: bool = False) -> bool:
        """May the object ``name`` holds be changed in place here?"""
        var = self.vars.get(name)
        if var is None or var.kind in ("global",) or var.shared or name in self.frozen:
            return False
        return not shrink or self._facts_allow(name)

    def _facts_allow(self, name: str) -> bool:
        # A fact set up outside the current loop must hold on every iteration.
        return all(d >= self.loop_depth for f, d in self.facts.items() if _mentions(f, {name}))

    def changed(self, name: str, *, shrink: bool = True) -> None:
        """Record a rebinding or shrinking of ``name``: facts about it no longer hold."""
        if shrink:
            self.mutlog.append(name)
            self.facts = {f: d for f, d in self.facts.items() if not _mentions(f, {name})}

    def bind(self, name: str, t: str, *, kind: str = "local", char: bool = False) -> Var:
        var = Var(name, t, self.loop_depth, kind=kind, char=char)
        self.vars[name] = var
        self.name_types[name] = t
        return var

    def taken(self, name: str, t: str | None = None) -> bool:
        if name in RESERVED or name in self.module.names or name in self.vars:
            return True
        known = self.name_types.get(name)
        return known is not None and known != t

    def fresh(self, t: str, pool: tuple[str, ...] | None = None) -> str:
        """An unused realistic name for a new variable of type ``t``."""
        options = list(pool if pool is not None else VAR_NAMES.get(t, ("value",)))
        self.rng.shuffle(options)
        for name in options:
            if not self.taken(name, t):
                return name
        base = options[0] if options else "value"
        for suffix in range(2, 50):
            name = f"{base}{suffix}"
            if not self.taken(name, t):
                return name
        raise RuntimeError("out of names")

    def loop_name(self, kind: str, collection: str | None = None) -> str:
        """A loop variable name: the singular of the collection's name, else from the pool."""
        t = {"char": STR, "index": INT, "int": INT, "str": STR}.get(kind, INT)
        if kind.startswith("key_str") or kind == "str":
            t = STR
        if collection and kind in ("int", "str"):
            base = collection.rsplit(".", 1)[-1]
            if base.endswith("ies") and len(base) > 4:
                single = base[:-3] + "y"
            elif base.endswith("s") and not base.endswith("ss") and len(base) > 2:
                single = base[:-1]
            else:
                single = ""
            usable = single and single.isidentifier() and not self.taken(single, t)
            if usable and self.rng.random() < 0.7:
                return single
        return self.fresh(t, LOOP_NAMES[kind])

    # ------------------------------------------------------------------ facts

    def has_fact(self, *fact: str) -> bool:
        return tuple(fact) in self.facts

    def index_exprs(self, seq: str) -> list[str]:
        """Index expressions known to be in range for ``seq``."""
        return [f[1] for f in self.facts if f[0] == "index" and f[2] == seq]

    def nonempty(self, seq: str) -> bool:
        return ("nonempty", seq) in self.facts

    def keys_in(self, d: str) -> list[str]:
        return [f[1] for f in self.facts if f[0] == "key" and f[2] == d]


def _mentions(fact: tuple[str, ...], names: set[str]) -> bool:
    if not names:
        return False
    for part in fact[1:]:
        for name in _NAME_RE.findall(part):
            if name in names:
                return True
    return False


_ASSIGN_RE = re.compile(r"^(\s*)([A-Za-z_]\w*) = (.+)$")
_MUTATORS = (
    ".pop(",
    ".append(",
    ".remove(",
    ".setdefault(",
    ".update(",
    ".add(",
    ".discard(",
    ".extend(",
    ".insert(",
    ".clear(",
    ".sort(",
    ".reverse(",
)


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def prune_dead_stores(
    lines: list[str], *, header: str, effects: set[str], keep: set[str] | None = None
) -> list[str]:
    """Drop plain assignments to names nothing else reads (noise a random body leaves behind).

    A line is kept when its value calls anything in ``effects`` (helpers, methods, classes),
    mutates something, or is the only statement of its block.
    """
    lines = list(lines)
    changed = True
    while changed:
        changed = False
        for i, line in enumerate(lines):
            m = _ASSIGN_RE.match(line)
            if m is None or (keep and line in keep):
                continue
            name, value = m.group(2), m.group(3)
            if any(mut in value for mut in _MUTATORS):
                continue
            if any(re.search(rf"(?<![\w.]){re.escape(e)}\(", value) for e in effects):
                continue
            if re.search(r"\.\w+\(", value) and "self" in value:
                continue
            pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
            if pattern.search(header):
                continue
            if any(pattern.search(other) for j, other in enumerate(lines) if j != i):
                continue
            prev = lines[i - 1] if i > 0 else header
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            if prev.rstrip().endswith(":") and (nxt is None or _indent_of(nxt) < _indent_of(line)):
                continue
            del lines[i]
            changed = True
            break
    return lines
