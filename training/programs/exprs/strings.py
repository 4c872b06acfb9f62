"""``str`` expressions: methods, slices, joins, f-strings, indexing and small ciphers.

Why: string handling is everyday code with many small steps; the model must see the value
each method returns.
"""

from __future__ import annotations

from ..scope import (
    BOOL,
    FLOAT,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_IFEXP,
    P_OR,
    STR,
    E,
    str_lit,
)
from .core import (
    NONEMPTY_STRS,
    SEPARATORS,
    SMALL_STRS,
    ExprsCore,
)


class Strings(ExprsCore):
    """Productions of type ``str``."""

    def str_method(self, depth: int) -> E | None:
        s = self.operand(STR, depth)
        if s.text.startswith(("'", '"')):
            return None
        r = self.rng.random()
        if r < 0.55:
            m = self.choose(
                "upper",
                "lower",
                "strip",
                "title",
                "capitalize",
                "swapcase",
                "lstrip",
                "rstrip",
                "lower",
                "strip",
            )
            return E(f"{s.atom}.{m}()")
        if r < 0.8:
            old = self.rng.choice(NONEMPTY_STRS)
            new = self.rng.choice(SMALL_STRS)
            if old == new:
                return None
            return E(f"{s.atom}.replace({str_lit(old)}, {str_lit(new)})")
        if r < 0.9:
            return E(f"{s.atom}.strip({str_lit(self.rng.choice(['.', ' .', '-', '!?', 'x']))})")
        width = self.rng.choice([4, 6, 8])
        m = self.choose("ljust", "rjust", "center", "zfill")
        if m == "zfill":
            return E(f"{s.atom}.zfill({width})")
        return E(f"{s.atom}.{m}({width}, {str_lit(self.rng.choice(['.', '*', '-', ' ']))})")

    def str_slice(self, depth: int) -> E | None:
        s = self.vname(STR)
        if not s:
            return None
        r = self.rng.random()
        if r < 0.3:
            return E(f"{s}[::-1]")
        if r < 0.7:
            k = self.rng.choice([1, 2, 3, 3, 4])
            return E(
                self.choose(f"{s}[{k}:]", f"{s}[:{k}]", f"{s}[:-{k}]", f"{s}[-{k}:]", f"{s}[::2]")
            )
        a = self.operand(INT, depth)
        return E(self.choose(f"{s}[:{a.text}]", f"{s}[{a.text}:]"))

    def str_concat(self, depth: int) -> E | None:
        a = self.operand(STR, depth)
        b = self.sub(STR, depth)
        if a.text == b.text or (a.text[0] in "'\"" and b.text[0] in "'\""):
            return None
        return E(f"{a.at(P_ADD)} + {b.at(P_ADD + 1)}", P_ADD)

    def str_join(self, depth: int) -> E | None:
        sep = str_lit(self.rng.choice(SEPARATORS))
        r = self.rng.random()
        if r < 0.35:
            words = self.vname(LSTR)
            if not words:
                return None
            inner = self.choose(words, words, f"sorted({words})", f"reversed({words})")
            return E(f"{sep}.join({inner})")
        if r < 0.55:
            s = self.vname(STR)
            if not s:
                return None
            return E(f"{sep}.join({self.choose(f'sorted({s})', f'reversed({s})', s)})")
        if r < 0.75:
            src = self.vname(LINT)
            if not src:
                return None
            x = self.bound_name("int", src)
            return E(f"{sep}.join(str({x}) for {x} in {src})")
        src_var = self.ctx.pick(self.rng.choice([STR, LSTR]))
        if src_var is None:
            return None
        kind = "char" if src_var.type == STR else "str"
        x = self.bound_name(kind, src_var.name)
        val = self.with_bound(x, STR, lambda: self.focused(STR, x, 1), char=kind == "char")
        if self.rng.random() < 0.5:
            cond = self.with_bound(x, STR, lambda: self.focused(BOOL, x, 1), char=kind == "char")
            return E(f"{sep}.join({val.text} for {x} in {src_var.name} if {cond.at(P_OR)})")
        return E(f"{sep}.join({val.text} for {x} in {src_var.name})")

    def str_of_int(self, depth: int) -> E | None:
        a = self.operand(INT, depth)
        if a.text.lstrip("-").isdigit():
            return None
        return E(f"str({a.text})")

    def str_fstring(self, depth: int) -> E | None:
        parts: list[str] = []
        names = [v for v in self.ctx.vars.values() if v.type in (INT, STR, FLOAT, BOOL)]
        if not names:
            return None
        self.rng.shuffle(names)
        n = self.rng.choice([1, 2, 2, 3])
        for i, v in enumerate(names[:n]):
            spec = ""
            if v.type == FLOAT:
                spec = ":.2f"
            elif v.type == INT and self.rng.random() < 0.15:
                spec = self.choose(":>3", ":03d", ":<4")
            text = v.name
            if v.type == STR and self.rng.random() < 0.2:
                text = f"{v.name}.upper()"
            elif v.type == INT and self.rng.random() < 0.15:
                text = f"{v.name} * 2"
            sep = "" if i == 0 else self.choose(" ", ", ", "-", ": ", "=", "/")
            label = ""
            if self.rng.random() < 0.35:
                short = v.name.rsplit(".", 1)[-1].rstrip("_")
                label = self.choose(short + "=", short + ": ", "#", "")
            parts.append(f"{sep}{label}{{{text}{spec}}}")
        return E('f"' + "".join(parts) + '"')

    def str_index(self, depth: int) -> E | None:
        if self.rng.random() < 0.5:
            s = self.vname(STR)
            if not s:
                return None
            idx = self.ctx.index_exprs(s)
            if idx:
                return E(f"{s}[{self.rng.choice(idx)}]")
            if self.ctx.nonempty(s):
                return E(f"{s}[{self.choose('0', '-1')}]")
            if self.rng.random() < 0.6:
                return E(self.choose(f"{s}[:1]", f"{s}[-1:]"))
            return E(f"{s}[0] if {s} else ''", P_IFEXP)
        words = self.vname(LSTR)
        if not words:
            return None
        idx = self.ctx.index_exprs(words)
        if idx:
            return E(f"{words}[{self.rng.choice(idx)}]")
        if self.ctx.nonempty(words):
            return E(f"{words}[{self.choose('0', '-1')}]")
        return E(f"{words}[{self.choose('0', '-1')}] if {words} else {str_lit('')}", P_IFEXP)

    def str_caesar(self, depth: int) -> E | None:
        v = self.ctx.pick(STR)
        if v is None or not v.char:
            return None
        k = self.rng.choice([1, 2, 3, 13])
        return E(
            f"chr((ord({v.name}) - ord('a') + {k}) % 26 + ord('a')) if {v.name}.islower() "
            f"else {v.name}",
            P_IFEXP,
        )

    def str_pick_word(self, depth: int) -> E | None:
        words = self.vname(LSTR)
        if not words:
            return None
        fn = self.choose("max", "min")
        key = self.choose("len", "len", "str.lower", "lambda w: (len(w), w)")
        return E(f"{fn}({words}, key={key}, default={str_lit('')})")

    def str_split_part(self, depth: int) -> E | None:
        s = self.vname(STR)
        if not s:
            return None
        sep = str_lit(self.rng.choice([",", " ", "-", ":", "."]))
        return E(
            self.choose(f"{s}.split({sep})[0]", f"{s}.split({sep})[-1]", f"{s}.partition({sep})[2]")
        )
