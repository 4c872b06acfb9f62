"""Calls, conditional expressions and object reads of any type.

Why: a value often comes from a helper, a generator or a method of the program itself; these
productions prefer what nobody called yet so every function of a program runs.
"""

from __future__ import annotations

from ..scope import (
    BOOL,
    INT,
    LINT,
    LSTR,
    P_ATOM,
    P_IFEXP,
    STR,
    E,
    Sig,
    is_obj,
    str_lit,
)
from .core import (
    SEPARATORS,
    ExprsCore,
    Production,
    is_number,
)


class Calls(ExprsCore):
    """Productions that call helpers, generators and methods, and ``a if c else b``."""

    def ifexp_of(self, t: str) -> Production:
        def make(depth: int) -> E | None:
            if depth <= 0:
                return None
            cond = self.condition(max(depth - 1, 0))
            a, b = self.sub(t, depth), self.sub(t, depth)
            if a.text == b.text:
                return None
            return E(f"{a.at(P_IFEXP + 1)} if {cond.at(P_IFEXP + 1)} else {b.at(P_IFEXP)}", P_IFEXP)

        return make

    def call_args(self, sig: Sig, depth: int) -> str:
        args = []
        for i, (_, t) in enumerate(sig.params):
            a = self.operand(t, depth) if self.rng.random() < 0.8 else self.sub(t, min(depth, 1))
            wrap = sig.bound.get(i)
            if wrap and not (a.text[:1] in "[\"'" or is_number(a.text)):
                args.append(wrap.format(a.at(P_ATOM)))
            else:
                args.append(a.text)
        return ", ".join(args)

    def callable_sigs(self, t: str) -> list[Sig]:
        ctx = self.ctx
        out = []
        for sig in ctx.callables:
            if sig.ret != t or sig.kind == "generator":
                continue
            if sig.raises and sig.raises not in ctx.catching:
                continue
            out.append(sig)
        return out

    def call_of(self, t: str) -> Production:
        def make(depth: int) -> E | None:
            sigs = self.callable_sigs(t)
            gens = [s for s in self.ctx.callables if s.kind == "generator"]
            if gens and self.rng.random() < 0.5:
                e = self.consume_generator(t, gens, depth)
                if e is not None:
                    return e
            if not sigs:
                return None
            weights = [4.0 if s.calls == 0 else 1.0 for s in sigs]
            sig = self.rng.choices(sigs, weights)[0]
            sig.calls += 1
            prefix = "self." if sig.kind == "method" else ""
            return E(f"{prefix}{sig.name}({self.call_args(sig, depth)})")

        return make

    def consume_generator(self, t: str, gens: list[Sig], depth: int) -> E | None:
        sig = self.rng.choice(gens)
        call = f"{sig.name}({self.call_args(sig, depth)})"
        if sig.elem == INT:
            if t == INT:
                sig.calls += 1
                return E(
                    self.choose(f"sum({call})", f"max({call}, default=0)", f"len(list({call}))")
                )
            if t == LINT:
                sig.calls += 1
                return E(self.choose(f"list({call})", f"sorted({call})"))
        if sig.elem == STR:
            if t == LSTR:
                sig.calls += 1
                return E(f"list({call})")
            if t == STR:
                sig.calls += 1
                return E(f"{str_lit(self.rng.choice(SEPARATORS))}.join({call})")
        return None

    def obj_of(self, t: str) -> Production:
        def make(depth: int) -> E | None:
            objs = [v for v in self.ctx.vars.values() if is_obj(v.type)]
            if not objs:
                return None
            obj = self.rng.choice(objs)
            info = next(c for c in self.ctx.module.classes if c.name == obj.type[4:])
            options: list[str] = []
            for m in info.methods:
                if m.ret == t and (not m.raises or m.raises in self.ctx.catching):
                    options.append(m.name)
            attrs = [a for a, at in info.attrs.items() if at == t and t in (INT, STR, BOOL)]
            if attrs and (not options or self.rng.random() < 0.35):
                return E(f"{obj.name}.{self.rng.choice(attrs)}")
            if not options:
                return None
            name = self.rng.choice(options)
            sig = next(m for m in info.methods if m.name == name)
            sig.calls += 1
            return E(f"{obj.name}.{name}({self.call_args(sig, depth)})")

        return make
