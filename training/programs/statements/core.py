"""The statement writer's state and the helpers every statement family shares.

Why: each family of statements (assignments, mutations, calls, branches, loops, idioms,
try/except) is a mixin over :class:`BodyCore`, which holds the scope being written (``ctx``),
the one random stream (``rng``) and the expression writer (``x``), and drives the writing: a
block is a run of statements, each drawn from the productions table of the composed
:class:`~.Body`. ``declare`` lives here because it is also the fallback when no production
fits the scope.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable

from ..exprs import Exprs
from ..names import WORDS
from ..scope import (
    BOOL,
    COLLECTIONS,
    DII,
    DSI,
    DSL,
    FLOAT,
    INT,
    LINT,
    LSTR,
    PAIR,
    SINT,
    STR,
    Ctx,
    E,
    Var,
    str_lit,
)

Producer = Callable[[], bool]

DECL_TYPES = (INT, BOOL, STR, LINT, LSTR, DSI, DII, SINT, PAIR, FLOAT, DSL)
DECL_WEIGHTS = (30, 7, 16, 16, 8, 8, 4, 5, 2, 2, 1.5)

COPIERS = {
    LINT: ("list({})", "{}[:]", "{}.copy()", "sorted({})"),
    LSTR: ("list({})", "{}[:]", "{}.copy()"),
    DSI: ("dict({})", "{}.copy()"),
    DII: ("dict({})", "{}.copy()"),
    SINT: ("set({})", "{}.copy()"),
    DSL: ("{{}}",),
}


class BodyCore(ABC):
    """Body's state, the statement driver and the helpers the statement families share."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.rng: random.Random = ctx.rng
        self.x = Exprs(ctx)

    def block(self, n: int) -> None:
        """About ``n`` statements at the current level (fewer when the budget runs out)."""
        for _ in range(n):
            if self.ctx.budget <= 0:
                break
            self.statement()

    def statement(self) -> None:
        table = self.productions()
        for _ in range(12):
            weights = [w for w, _ in table]
            _, producer = self.rng.choices(table, weights)[0]
            if producer():
                self.ctx.budget -= 1
                return
        self.declare()
        self.ctx.budget -= 1

    @abstractmethod
    def productions(self) -> list[tuple[float, Producer]]:
        """The weighted statement forms that fit the scope now (the composed body's table)."""

    def emit(self, line: str) -> None:
        self.ctx.emit(line)

    def decl_type(self) -> str:
        return self.rng.choices(DECL_TYPES, DECL_WEIGHTS)[0]

    def value_for(self, t: str, depth: int | None = None) -> E:
        """An expression to bind to a new variable: never an alias of a collection."""
        if depth is None:
            depth = self.rng.choice([1, 2, 2, 3])
        e = self.x.gen(t, depth)
        return self.no_alias(t, e)

    def no_alias(self, t: str, e: E) -> E:
        var = self.ctx.vars.get(e.text)
        if t in COLLECTIONS and var is not None:
            return E(self.rng.choice(COPIERS[t]).format(e.text))
        return e

    def writable(self, t: str) -> list[Var]:
        return [v for v in self.ctx.vars.values() if v.type == t and self.ctx.can_write(v.name)]

    def mutable(self, types: tuple[str, ...], *, shrink: bool = False) -> list[Var]:
        return [
            v
            for v in self.ctx.vars.values()
            if v.type in types and self.ctx.can_mutate(v.name, shrink=shrink)
        ]

    def cond(self, depth: int = 2) -> E:
        return self.x.condition(depth)

    def sub_block(self, n: int | None = None) -> None:
        if n is None:
            n = self.rng.choice([1, 1, 2, 2, 3])
        self.ctx.budget += 0  # the compound statement paid for itself
        for _ in range(n):
            self.statement()

    def elem_expr(self, t: str, avoid: str | None = None) -> E:
        """A value to put into a collection, preferring the focus (a loop variable)."""
        for _ in range(4):
            e = self.x.gen(t, self.rng.choice([0, 1, 1, 2]))
            if avoid is None or avoid not in e.text:
                return e
        return self.x.fallback(t)

    def dict_key(self, d: Var) -> E:
        kt = STR if d.type in (DSI, DSL) else INT
        known = self.ctx.keys_in(d.name)
        if known and self.rng.random() < 0.5:
            return E(self.rng.choice(known))
        if kt == STR and self.rng.random() < 0.25:
            return E(str_lit(self.rng.choice(WORDS)))
        return self.elem_expr(kt, avoid=d.name)

    def declare(self) -> bool:
        ctx = self.ctx
        objs = [c for c in ctx.module.classes]
        if objs and self.rng.random() < 0.12:
            return self.new_object()
        t = self.decl_type()
        e = self.value_for(t)
        name = ctx.fresh(t)
        self.emit(f"{name} = {e.text}")
        ctx.bind(name, t, char=False)
        return True

    def new_object(self) -> bool:
        ctx = self.ctx
        info = self.rng.choice(ctx.module.classes)
        if sum(1 for v in ctx.vars.values() if v.type == f"obj:{info.name}") >= 2:
            return False
        name = ctx.fresh(f"obj:{info.name}", info.var_names)
        args = []
        for _, t in info.init_params:
            args.append(self.no_alias(t, self.x.operand(t, 1)).text)
        self.emit(f"{name} = {info.name}({', '.join(args)})")
        ctx.bind(name, f"obj:{info.name}")
        return True
