"""Dicts, sets and pairs: literals, comprehensions, set algebra, tuples.

Why: the keyed and unordered containers print in the order the program built them, which the
model has to follow step by step.
"""

from __future__ import annotations

from ..names import WORDS
from ..scope import (
    BOOL,
    DSI,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_BAND,
    P_BOR,
    P_IFEXP,
    P_OR,
    SINT,
    STR,
    E,
    Var,
    lit,
)
from .core import (
    ExprsCore,
)


class Containers(ExprsCore):
    """Productions of the dict, set and pair types."""

    def dsi_lit(self, depth: int) -> E:
        n = self.rng.choice([1, 2, 3])
        keys = self.rng.sample(WORDS, n)
        return E(lit({k: self.rng.randint(0, 9) for k in keys}))

    def dsi_comprehension(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.4:
            src = self.vname(LSTR)
            if not src:
                return None
            w = self.bound_name("str", src)
            val = self.with_bound(w, STR, lambda: self.focused(INT, w, 1))
            if self.rng.random() < 0.3:
                cond = self.with_bound(w, STR, lambda: self.focused(BOOL, w, 1))
                return E(f"{{{w}: {val.text} for {w} in {src} if {cond.at(P_OR)}}}")
            return E(f"{{{w}: {val.text} for {w} in {src}}}")
        if r < 0.55:
            words, nums = self.vname(LSTR), self.vname(LINT)
            if not words or not nums:
                return None
            return E(f"dict(zip({words}, {nums}))")
        if r < 0.75:
            d = self.vname(DSI)
            if not d:
                return None
            k, v = self.bound_name("key_str"), self.bound_name("val_int")
            if k == v:
                return None
            self.ctx.vars[k] = Var(k, STR, self.ctx.loop_depth, kind="loop")
            try:
                val = self.with_bound(v, INT, lambda: self.focused(INT, v, 1))
            finally:
                del self.ctx.vars[k]
            cond = self.choose("", f" if {v} > 0", f" if {v} % 2 == 0", f" if {k}")
            return E(f"{{{k}: {val.text} for {k}, {v} in {d}.items(){cond}}}")
        if r < 0.85:
            s = self.vname(STR)
            if not s:
                return None
            return E(
                self.choose(
                    f"{{ch: {s}.count(ch) for ch in {s}}}", f"{{ch: i for i, ch in enumerate({s})}}"
                )
            )
        words = self.vname(LSTR)
        if not words:
            return None
        return E(
            self.choose(f"dict.fromkeys({words}, 0)", f"{{w: i for i, w in enumerate({words})}}")
        )

    def dii_comprehension(self, depth: int) -> E | None:
        src = self.vname(LINT)
        if not src:
            return None
        r = self.rng.random()
        if r < 0.5:
            x = self.bound_name("int", src)
            val = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
            return E(f"{{{x}: {val.text} for {x} in {src}}}")
        return E(
            self.choose(
                f"{{i: x for i, x in enumerate({src})}}",
                f"{{x: {src}.count(x) for x in {src}}}",
                f"dict(enumerate({src}))",
                f"{{x % 10: x for x in {src}}}",
            )
        )

    def sint_build(self, depth: int) -> E | None:
        src = self.vname(LINT)
        if not src:
            return None
        if self.rng.random() < 0.4:
            return E(f"set({src})")
        x = self.bound_name("int", src)
        val = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
        if self.rng.random() < 0.4:
            cond = self.with_bound(x, INT, lambda: self.focused(BOOL, x, 1))
            return E(f"{{{val.text} for {x} in {src} if {cond.at(P_OR)}}}")
        return E(f"{{{val.text} for {x} in {src}}}")

    def sint_ops(self, depth: int) -> E | None:
        a = self.vname(SINT)
        if not a:
            return None
        b = self.vname(SINT)
        other = b if b and b != a else None
        if other is None:
            src = self.vname(LINT)
            if not src:
                return None
            other = f"set({src})"
            if self.rng.random() < 0.5:
                m = self.choose("union", "intersection", "difference")
                return E(f"{a}.{m}({src})")
        op, prec = self.rng.choice([("|", P_BOR), ("&", P_BAND), ("-", P_ADD), ("^", P_BOR + 1)])
        if self.rng.random() < 0.4:
            m = {"|": "union", "&": "intersection", "-": "difference", "^": "symmetric_difference"}[
                op
            ]
            return E(f"{a}.{m}({other})")
        return E(f"{a} {op} {other}", prec)

    def pair_build(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.35:
            a, b = self.operand(INT, depth), self.operand(INT, depth)
            return E(f"({a.text}, {b.text})")
        if r < 0.6:
            a = self.operand(INT, depth)
            return E(f"divmod({a.text}, {self.rng.choice([2, 3, 5, 10])})")
        src = self.vname(LINT)
        if not src:
            return None
        if self.ctx.nonempty(src):
            return E(f"(min({src}), max({src}))")
        return E(f"(min({src}), max({src})) if {src} else (0, 0)", P_IFEXP)
