"""The expression writer's state, its driver and the helpers every family shares.

Why: each family of expressions (numbers, bools, strings, lists, containers, calls) is a mixin
over :class:`ExprsCore`, which reads the scope (``ctx``), draws from the one random stream
(``rng``) and picks a production of the wanted type from the table the composed
:class:`~.Exprs` builds (``gen``); it also writes the fallbacks, conditions and the
expressions that must mention a bound variable (``focused``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from ..scope import (
    BOOL,
    DII,
    DSI,
    DSL,
    FLOAT,
    INT,
    LINT,
    LSTR,
    P_CMP,
    PAIR,
    SINT,
    STR,
    Ctx,
    E,
    Var,
    str_lit,
)

Production = Callable[[int], E | None]

SMALL_STRS = ("", " ", ",", ", ", "-", "_", ":", "a", "e", "x", "ab", "the", "#", "!", ".", "*")
NONEMPTY_STRS = (" ", ",", "-", "_", ":", "a", "e", "o", "x", "ab", "an", "the", "#", "!", ".")
SEPARATORS = ("", " ", ", ", "-", "_", "/", ":", "|", ";")


def small_int(rng: random.Random) -> int:
    return rng.choices(
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 20, 100, -1],
        [6, 10, 9, 6, 4, 4, 2, 2, 2, 4, 1, 2, 1, 1],
    )[0]


def is_number(text: str) -> bool:
    return text.lstrip("-").replace(".", "", 1).isdigit()


IDENT = re.compile(r"(?<![\w.'\"])[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?")


def mentions_name(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


class ExprsCore:
    """The driver (gen, condition, focused) and the helpers the expression families share."""

    table: dict[str, list[tuple[float, Production, bool]]]  # built by the composed Exprs

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.rng: random.Random = ctx.rng

    def gen(self, t: str, depth: int = 2) -> E:
        """An expression of type ``t``, at most about ``depth`` productions deep."""
        table = self.table[t]
        for _ in range(16):
            weights = [w if (terminal or depth > 0) else 0.0 for w, _, terminal in table]
            if not any(weights):
                break
            _, production, _ = self.rng.choices(table, weights)[0]
            e = production(depth)
            if e is not None:
                return e
        return self.fallback(t)

    def fallback(self, t: str) -> E:
        return {
            INT: E(str(self.rng.choice([0, 1, 2, 3]))),
            BOOL: E("False"),
            FLOAT: E("0.0"),
            STR: E(str_lit(self.rng.choice(SMALL_STRS))),
            LINT: E("[]"),
            LSTR: E("[]"),
            DSI: E("{}"),
            DII: E("{}"),
            DSL: E("{}"),
            SINT: E("set()"),
            PAIR: E("(0, 0)"),
        }[t]

    def condition(self, depth: int = 2) -> E:
        """A boolean test that reads at least one variable and has no literal True/False."""
        e = self.gen(BOOL, depth)
        for _ in range(10):
            if self.is_real_test(e.text):
                return e
            e = self.gen(BOOL, depth)
        v = self.ctx.pick(INT)
        if v is not None:
            return E(f"{v.name} > {small_int(self.rng)}", P_CMP)
        for t in (STR, LINT, LSTR, DSI, DII, SINT):
            v = self.ctx.pick(t)
            if v is not None:
                return E(f"len({v.name}) > {self.rng.choice([1, 2, 3])}", P_CMP)
        return e

    def is_real_test(self, text: str) -> bool:
        if re.search(r"\b(True|False)\b", text):
            return False
        return any(name in self.ctx.vars for name in IDENT.findall(text))

    def var(self, t: str) -> E | None:
        v = self.ctx.pick(t)
        return E(v.name) if v is not None else None

    def vname(self, t: str) -> str | None:
        v = self.ctx.pick(t)
        return v.name if v is not None else None

    def choose(self, *options: str) -> str:
        return self.rng.choice(options)

    def sub(self, t: str, depth: int) -> E:
        return self.gen(t, max(depth - 1, 0))

    def operand(self, t: str, depth: int) -> E:
        """A subexpression preferring variables (so arithmetic is not all literals)."""
        if self.rng.random() < 0.6:
            e = self.var(t)
            if e is not None:
                return e
        return self.sub(t, depth)

    def with_bound(self, name: str, t: str, body: Callable[[], E], *, char: bool = False) -> E:
        """Generate ``body`` with ``name`` bound (a comprehension or lambda variable)."""
        ctx = self.ctx
        saved = ctx.vars.get(name)
        saved_focus = ctx.focus
        ctx.vars[name] = Var(name, t, ctx.loop_depth, kind="loop", char=char)
        ctx.focus = name
        try:
            return body()
        finally:
            if saved is None:
                del ctx.vars[name]
            else:
                ctx.vars[name] = saved
            ctx.focus = saved_focus

    def bound_name(self, kind: str, collection: str | None = None) -> str:
        name = self.ctx.loop_name(kind, collection)
        self.ctx.name_types.setdefault(name, STR if kind in ("str", "char") else INT)
        return name

    def focused(self, t: str, name: str, depth: int, tries: int = 6) -> E:
        """An expression of type ``t`` that mentions ``name`` (the bound variable)."""
        for _ in range(tries):
            e = self.gen(t, depth)
            if mentions_name(e.text, name):
                return e
        var = self.ctx.vars.get(name)
        vt = var.type if var else INT
        if vt == t:
            return E(name)
        if vt == INT and t == BOOL:
            return E(f"{name} > {small_int(self.rng)}", P_CMP)
        if vt == STR and t == BOOL:
            return E(f"{name}.isalpha()")
        if vt == STR and t == INT:
            return E(f"len({name})")
        if vt == INT and t == STR:
            return E(f"str({name})")
        return self.gen(t, depth)

    def len_of(self, depth: int) -> E | None:
        t = self.rng.choice([STR, LINT, LSTR, DSI, DII, SINT, STR, LINT, DSL])
        name = self.vname(t)
        return E(f"len({name})") if name else None

    def int_bound(self) -> E:
        """A small bound for ``range()``/repetition: never an unbounded value."""
        r = self.rng.random()
        if r < 0.45:
            name = self.vname(self.rng.choice([LINT, STR, LSTR, LINT]))
            if name:
                return E(f"len({name})")
        if r < 0.7:
            name = self.vname(INT)
            if name:
                return E(f"min({name}, {self.rng.choice([3, 4, 5, 6])})")
        return E(str(self.rng.choice([2, 3, 3, 4, 4, 5, 6])))
