"""Assignments to variables already in scope: accumulators, reassignment and unpacking.

Why: most steps of everyday code grow a counter or a string, or split one value into several
names (``q, r = divmod(n, 10)``, ``first, *rest = xs``); the model must see each form change
the variables it names.
"""

from __future__ import annotations

from ..scope import (
    DSL,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_MUL,
    PAIR,
    STR,
    E,
    elem_of,
    is_obj,
    str_lit,
)
from .core import BodyCore


class Assignments(BodyCore):
    """Statements that rebind names: ``+=`` updates, reassignment, tuple unpacking."""

    def int_update(self) -> bool:
        cands = self.writable(INT)
        if not cands:
            return False
        v = self.rng.choice(cands)
        r = self.rng.random()
        other = self.elem_expr(INT, avoid=v.name)
        if other.text in ("0", "1", "-1"):
            other = E(str(self.rng.choice([2, 3, 5])))
        if r < 0.35:
            line = f"{v.name} += {other.text}"
        elif r < 0.47:
            line = f"{v.name} += 1"
        elif r < 0.57:
            line = f"{v.name} -= {other.text}"
        elif r < 0.67:
            line = f"{v.name} = {self.x.choose('max', 'min')}({v.name}, {other.text})"
        elif r < 0.74:
            line = f"{v.name} *= {self.rng.choice([2, 3, -1])}"
        elif r < 0.82:
            line = f"{v.name} {self.x.choose('//=', '%=')} {self.rng.choice([2, 3, 10])}"
        elif r < 0.9:
            line = f"{v.name} = {v.name} * 10 + {other.at(P_MUL)} % 10"
        else:
            line = f"{v.name} = abs({v.name} - {other.at(P_ADD + 1)})"
        self.emit(line)
        self.ctx.changed(v.name)
        return True

    def reassign(self) -> bool:
        cands = [
            v
            for v in self.ctx.vars.values()
            if not is_obj(v.type) and v.type != DSL and self.ctx.can_write(v.name)
        ]
        if not cands:
            return False
        v = self.rng.choice(cands)
        e = self.x.focused(v.type, v.name, self.rng.choice([1, 2]))
        if e.text == v.name:
            return False
        e = self.no_alias(v.type, e)
        self.emit(f"{v.name} = {e.text}")
        self.ctx.changed(v.name)
        return True

    def str_accumulate(self) -> bool:
        cands = self.writable(STR)
        if not cands:
            return False
        v = self.rng.choice(cands)
        piece = self.elem_expr(STR, avoid=v.name)
        if piece.text == v.name:
            return False
        r = self.rng.random()
        if r < 0.6:
            self.emit(f"{v.name} += {piece.text}")
        elif r < 0.8:
            self.emit(f"{v.name} = {piece.at(P_ADD)} + {v.name}")
        else:
            self.emit(f"{v.name} += {str_lit(self.rng.choice(['-', ' ', ',', '*', '.']))}")
        self.ctx.changed(v.name)
        return True

    def unpack(self) -> bool:
        ctx = self.ctx
        r = self.rng.random()
        if r < 0.2:
            for t in self.rng.sample([INT, STR, LINT], 3):
                cands = self.writable(t)
                if len(cands) >= 2:
                    a, b = self.rng.sample(cands, 2)
                    self.emit(f"{a.name}, {b.name} = {b.name}, {a.name}")
                    ctx.changed(a.name)
                    ctx.changed(b.name)
                    return True
            return False
        if r < 0.4:
            a = self.x.operand(INT, 1)
            if a.text.lstrip("-").isdigit():
                return False
            q = ctx.fresh(INT, ("q", "quotient", "tens", "whole", "div"))
            rem = ctx.fresh(INT, ("r", "rem", "remainder", "ones", "extra", "mod"))
            if q == rem:
                return False
            self.emit(f"{q}, {rem} = divmod({a.text}, {self.rng.choice([2, 3, 5, 10])})")
            ctx.bind(q, INT)
            ctx.bind(rem, INT)
            return True
        if r < 0.6:
            src = self.x.vname(LINT)
            if not src:
                return False
            lo = ctx.fresh(INT, ("lo", "low", "smallest", "least"))
            hi = ctx.fresh(INT, ("hi", "high", "largest", "most"))
            if lo == hi:
                return False
            if ctx.nonempty(src):
                self.emit(f"{lo}, {hi} = min({src}), max({src})")
            else:
                self.emit(f"{lo}, {hi} = (min({src}), max({src})) if {src} else (0, 0)")
            ctx.bind(lo, INT)
            ctx.bind(hi, INT)
            return True
        if r < 0.72:
            src = self.x.vname(self.rng.choice([LINT, LSTR]))
            if not src or not ctx.nonempty(src):
                return False
            t = ctx.vars[src].type
            first = ctx.fresh(elem_of(t), ("first", "head", "top"))
            rest = ctx.fresh(t, ("rest", "tail", "others", "remaining"))
            if first == rest:
                return False
            self.emit(f"{first}, *{rest} = {src}")
            ctx.bind(first, elem_of(t))
            ctx.bind(rest, t)
            return True
        if r < 0.82:
            p = self.x.vname(PAIR)
            if not p:
                return False
            a = ctx.fresh(INT, ("a", "lo", "start", "x0"))
            b = ctx.fresh(INT, ("b", "hi", "end", "x1"))
            if a == b:
                return False
            self.emit(f"{a}, {b} = {p}")
            ctx.bind(a, INT)
            ctx.bind(b, INT)
            return True
        if r < 0.9:
            s = self.x.vname(STR)
            if not s:
                return False
            head = ctx.fresh(STR, ("head", "before", "left", "name"))
            tail = ctx.fresh(STR, ("tail", "after", "right", "value"))
            if head == tail:
                return False
            sep = str_lit(self.rng.choice([":", "=", " ", ",", "-"]))
            self.emit(f"{head}, _, {tail} = {s}.partition({sep})")
            ctx.bind(head, STR)
            ctx.bind(tail, STR)
            return True
        t = self.rng.choice([INT, STR])
        e1, e2 = self.x.gen(t, 1), self.x.gen(t, 1)
        a, b = ctx.fresh(t), ctx.fresh(t)
        if a == b:
            return False
        self.emit(f"{a}, {b} = {e1.text}, {e2.text}")
        ctx.bind(a, t)
        ctx.bind(b, t)
        return True
