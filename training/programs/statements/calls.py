"""Calls into the program's own helpers, objects and methods; prints and yields.

Why: a trace steps into every call, so each helper and method of a generated program should
be called at least once; these statements prefer the ones nobody called yet.
"""

from __future__ import annotations

from ..scope import (
    BOOL,
    DSI,
    INT,
    LINT,
    LSTR,
    STR,
    E,
    Sig,
    is_obj,
)
from .core import BodyCore


class Calls(BodyCore):
    """Statements that call helpers, methods and ``print``, or ``yield`` a value."""

    def call_helper(self) -> bool:
        """Call a helper nobody called yet (so every helper of the program runs)."""
        ctx = self.ctx
        sigs = [
            s
            for s in ctx.callables
            if s.kind != "method" and (not s.raises or s.raises in ctx.catching)
        ]
        if not sigs:
            return False
        uncalled = [s for s in sigs if s.calls == 0]
        sig = self.rng.choice(uncalled or sigs)
        return self.call_sig(sig)

    def call_sig(self, sig: Sig) -> bool:
        ctx = self.ctx
        args = self.x.call_args(sig, 1)
        call = f"{sig.name}({args})"
        sig.calls += 1
        if sig.kind == "generator":
            t = LINT if sig.elem == INT else LSTR
            name = ctx.fresh(t)
            self.emit(
                f"{name} = {self.x.choose(f'list({call})', f'list({call})', f'sorted({call})')}"
            )
            ctx.bind(name, t)
            return True
        assert sig.ret is not None
        t = sig.ret
        if t == INT and self.writable(INT) and self.rng.random() < 0.3:
            v = self.rng.choice(self.writable(INT))
            self.emit(f"{v.name} += {call}")
            ctx.changed(v.name)
            return True
        name = ctx.fresh(t)
        self.emit(f"{name} = {call}")
        ctx.bind(name, t)
        return True

    def object_statement(self) -> bool:
        ctx = self.ctx
        objs = [v for v in ctx.vars.values() if is_obj(v.type)]
        if not objs:
            if ctx.module.classes and self.rng.random() < 0.6:
                return self.new_object()
            return False
        obj = self.rng.choice(objs)
        info = next(c for c in ctx.module.classes if c.name == obj.type[4:])
        r = self.rng.random()
        int_attrs = [a for a, t in info.attrs.items() if t == INT]
        if r < 0.15 and int_attrs:
            other = self.elem_expr(INT)
            op = self.x.choose("+=", "-=", "=")
            self.emit(f"{obj.name}.{self.rng.choice(int_attrs)} {op} {other.text}")
            return True
        methods = [m for m in info.methods if not m.raises or m.raises in ctx.catching]
        if not methods:
            return False
        uncalled = [m for m in methods if m.calls == 0]
        m = self.rng.choice(uncalled or methods)
        m.calls += 1
        call = f"{obj.name}.{m.name}({self.x.call_args(m, 1)})"
        if m.ret is None or self.rng.random() < 0.3:
            self.emit(call)
            return True
        name = ctx.fresh(m.ret)
        self.emit(f"{name} = {call}")
        ctx.bind(name, m.ret)
        return True

    def self_call(self) -> bool:
        ctx = self.ctx
        sigs = [s for s in ctx.callables if s.kind == "method"]
        if not sigs or any(name.startswith("self.") for name in ctx.frozen):
            return False  # a method could grow the attribute this loop runs over
        m = self.rng.choice(sigs)
        m.calls += 1
        call = f"self.{m.name}({self.x.call_args(m, 1)})"
        if m.ret is None or self.rng.random() < 0.4:
            self.emit(call)
            return True
        name = ctx.fresh(m.ret)
        self.emit(f"{name} = {call}")
        ctx.bind(name, m.ret)
        return True

    def print_statement(self) -> bool:
        ctx = self.ctx
        r = self.rng.random()
        if r < 0.4:
            e = self.x.str_fstring(1)
            if e is None:
                return False
        elif r < 0.8:
            t = self.rng.choice([INT, STR, LINT, LSTR, DSI, BOOL, INT])
            e = self.x.var(t) or self.x.gen(t, 1)
        else:
            a, b = self.x.gen(STR, 0), self.x.gen(INT, 1)
            e = E(f"{a.text}, {b.text}")
        self.emit(f"print({e.text})")
        ctx.prints_left -= 1
        return True

    def yield_statement(self) -> bool:
        ctx = self.ctx
        assert ctx.yield_type is not None
        e = self.elem_expr(ctx.yield_type)
        if self.rng.random() < 0.4:
            self.emit(f"if {self.cond(1).text}:")
            with ctx.block():
                self.emit(f"yield {e.text}")
        else:
            self.emit(f"yield {e.text}")
        ctx.yields += 1
        return True
