"""Lists of ints and of strings: literals, sorted copies, slices, comprehensions, maps.

Why: comprehensions and copies make new lists from the ones in scope; a list is never an
alias of a parameter, so mutating it later cannot change the caller's value.
"""

from __future__ import annotations

from ..names import WORDS
from ..scope import (
    BOOL,
    DII,
    DSI,
    DSL,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_OR,
    SINT,
    STR,
    E,
    Var,
    lit,
    str_lit,
)
from .core import (
    ExprsCore,
    small_int,
)


class Lists(ExprsCore):
    """Productions of type ``list[int]`` and ``list[str]``."""

    def lint_lit(self, depth: int) -> E:
        n = self.rng.choice([0, 0, 1, 2, 3, 3, 4])
        return E(lit([self.rng.randint(-5, 20) for _ in range(n)]))

    def lint_sorted(self, depth: int) -> E | None:
        src = self.vname(LINT)
        if not src:
            return None
        r = self.rng.random()
        if r < 0.4:
            return E(f"sorted({src})")
        if r < 0.6:
            return E(f"sorted({src}, reverse=True)")
        x = self.bound_name("int", src)
        key = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
        if self.rng.random() < 0.3:
            key = E(f"({key.text}, {x})")
        return E(f"sorted({src}, key=lambda {x}: {key.text})")

    def lint_slice(self, depth: int) -> E | None:
        src = self.vname(LINT)
        if not src:
            return None
        k = self.rng.choice([1, 1, 2, 3])
        options = [f"{src}[{k}:]", f"{src}[:{k}]", f"{src}[::-1]", f"{src}[::2]", f"{src}[:-{k}]"]
        idx = self.ctx.index_exprs(src)
        if idx:
            i = self.rng.choice(idx)
            options += [f"{src}[:{i}]", f"{src}[{i}:]"]
        return E(self.rng.choice(options))

    def lint_concat(self, depth: int) -> E | None:
        a = self.vname(LINT)
        if not a:
            return None
        if self.rng.random() < 0.5:
            b = self.vname(LINT)
            if not b:
                return None
            return E(f"{a} + {b}", P_ADD)
        x = self.operand(INT, depth)
        return E(f"{a} + [{x.text}]", P_ADD)

    def lint_comprehension(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.5:
            src = self.vname(LINT)
            if not src:
                return None
            x = self.bound_name("int", src)
            val = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
            if self.rng.random() < 0.6:
                cond = self.with_bound(x, INT, lambda: self.focused(BOOL, x, 1))
                return E(f"[{val.text} for {x} in {src} if {cond.at(P_OR)}]")
            return E(f"[{val.text} for {x} in {src}]")
        if r < 0.62:
            src = self.vname(LINT)
            if not src:
                return None
            i = self.bound_name("index")
            x = self.bound_name("int", src)
            if i == x:
                return None
            self.ctx.vars[i] = Var(i, INT, self.ctx.loop_depth, kind="loop")
            try:
                val = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
            finally:
                del self.ctx.vars[i]
            return E(f"[{val.text} for {i}, {x} in enumerate({src})]")
        if r < 0.72:
            a, b = self.vname(LINT), self.vname(LINT)
            if not a or not b:
                return None
            return E(
                self.choose(
                    f"[x + y for x, y in zip({a}, {b})]",
                    f"[max(x, y) for x, y in zip({a}, {b})]",
                    f"[x * y for x, y in zip({a}, {b})]",
                    f"[b - a for a, b in zip({a}, {a}[1:])]",
                )
            )
        if r < 0.84:
            src = self.vname(LSTR)
            if not src:
                return None
            w = self.bound_name("str", src)
            val = self.with_bound(w, STR, lambda: self.focused(INT, w, 1))
            return E(f"[{val.text} for {w} in {src}]")
        if r < 0.92:
            s = self.vname(STR)
            if not s:
                return None
            return E(
                self.choose(
                    f"[ord(ch) for ch in {s}]",
                    f"[int(ch) for ch in {s} if ch.isdigit()]",
                    f"[i for i, ch in enumerate({s}) if ch == ' ']",
                    f"[len(part) for part in {s}.split()]",
                )
            )
        bound = self.int_bound()
        i = self.bound_name("index")
        val = self.with_bound(i, INT, lambda: self.focused(INT, i, 1))
        return E(f"[{val.text} for {i} in range({bound.text})]")

    def lint_map_filter(self, depth: int) -> E | None:
        src = self.vname(LINT)
        if not src:
            return None
        x = self.bound_name("int", src)
        if self.rng.random() < 0.5:
            val = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
            return E(f"list(map(lambda {x}: {val.text}, {src}))")
        cond = self.with_bound(x, INT, lambda: self.focused(BOOL, x, 1))
        return E(f"list(filter(lambda {x}: {cond.text}, {src}))")

    def lint_range(self, depth: int) -> E:
        bound = self.int_bound()
        return E(
            self.choose(
                f"list(range({bound.text}))",
                f"list(range(1, {bound.at(P_ADD)} + 1))",
                f"list(range({bound.text}, 0, -1))",
            )
        )

    def lint_from_other(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.3:
            src = self.vname(LINT)
            return (
                E(self.choose(f"list(reversed({src}))", f"{src}.copy()", f"list({src})"))
                if src
                else None
            )
        if r < 0.55:
            d = self.vname(DII)
            if not d:
                return None
            return E(self.choose(f"list({d}.values())", f"list({d})", f"sorted({d})"))
        if r < 0.8:
            d = self.vname(DSI)
            return E(self.choose(f"list({d}.values())", f"sorted({d}.values())")) if d else None
        s = self.vname(SINT)
        return E(f"sorted({s})") if s else None

    def lstr_lit(self, depth: int) -> E:
        n = self.rng.choice([0, 1, 2, 3])
        return E(lit(self.rng.sample(WORDS, n)))

    def lstr_split(self, depth: int) -> E | None:
        s = self.vname(STR)
        if not s:
            return None
        sep = self.choose("", "", str_lit(","), str_lit(" "), str_lit("-"), str_lit(", "))
        if self.rng.random() < 0.15:
            return E(f"list({s})")
        return E(f"{s}.split({sep})")

    def lstr_sorted(self, depth: int) -> E | None:
        src = self.vname(LSTR)
        if not src:
            return None
        key = self.choose(
            "", "", ", key=len", ", reverse=True", ", key=str.lower", ", key=lambda w: (-len(w), w)"
        )
        return E(f"sorted({src}{key})")

    def lstr_comprehension(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.55:
            src = self.vname(LSTR)
            if not src:
                return None
            w = self.bound_name("str", src)
            val = self.with_bound(w, STR, lambda: self.focused(STR, w, 1))
            if self.rng.random() < 0.6:
                cond = self.with_bound(w, STR, lambda: self.focused(BOOL, w, 1))
                return E(f"[{val.text} for {w} in {src} if {cond.at(P_OR)}]")
            return E(f"[{val.text} for {w} in {src}]")
        if r < 0.75:
            s = self.vname(STR)
            if not s:
                return None
            c = self.bound_name("char", s)
            cond = self.with_bound(c, STR, lambda: self.focused(BOOL, c, 1), char=True)
            return E(f"[{c} for {c} in {s} if {cond.at(P_OR)}]")
        if r < 0.88:
            d = self.vname(DSI)
            if not d:
                return None
            k, v = self.bound_name("key_str"), self.bound_name("val_int")
            if k == v:
                return None
            return E(
                self.choose(
                    f'[f"{{{k}}}={{{v}}}" for {k}, {v} in {d}.items()]',
                    f"[{k} for {k}, {v} in {d}.items() if {v} > {small_int(self.rng)}]",
                    f"[{k}.upper() for {k} in {d}]",
                )
            )
        src = self.vname(LINT)
        if not src:
            return None
        x = self.bound_name("int", src)
        return E(self.choose(f"[str({x}) for {x} in {src}]", f'[f"#{{{x}}}" for {x} in {src}]'))

    def lstr_slice(self, depth: int) -> E | None:
        src = self.vname(LSTR)
        if not src:
            return None
        k = self.rng.choice([1, 2])
        return E(self.choose(f"{src}[{k}:]", f"{src}[:{k}]", f"{src}[::-1]", f"{src}[::2]"))

    def lstr_map(self, depth: int) -> E | None:
        src = self.vname(LSTR)
        if not src:
            return None
        return E(
            self.choose(
                f"list(map(str.upper, {src}))",
                f"list(map(str.strip, {src}))",
                f"list(filter(None, {src}))",
                f"list(filter(str.isalpha, {src}))",
                f"list(map(lambda w: w[::-1], {src}))",
            )
        )

    def lstr_from_other(self, depth: int) -> E | None:
        if self.rng.random() < 0.5:
            d = self.vname(self.rng.choice([DSI, DSL]))
            return E(self.choose(f"list({d})", f"sorted({d})", f"list({d}.keys())")) if d else None
        src = self.vname(LSTR)
        if not src:
            return None
        s = self.vname(STR)
        if s and self.rng.random() < 0.5:
            return E(f"{src} + [{s}]", P_ADD)
        return E(self.choose(f"list(reversed({src}))", f"{src}.copy()", f"sorted(set({src}))"))
