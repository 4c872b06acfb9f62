"""``int`` and ``float`` expressions.

Why: arithmetic, lengths, aggregates, indexing and parsing are most of the values a trace
shows; an index is only written under a fact or guard that makes it safe, a division only by
a non-zero literal or under a guard.
"""

from __future__ import annotations

from ..names import WORDS
from ..scope import (
    BOOL,
    DII,
    DSI,
    FLOAT,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_ATOM,
    P_CMP,
    P_IFEXP,
    P_MUL,
    P_OR,
    P_POW,
    P_UNARY,
    PAIR,
    SINT,
    STR,
    E,
    str_lit,
)
from .core import (
    NONEMPTY_STRS,
    ExprsCore,
    small_int,
)


class Numbers(ExprsCore):
    """Productions of type ``int`` and ``float``."""

    def int_lit(self, depth: int) -> E:
        n = small_int(self.rng)
        return E(str(n), P_UNARY if n < 0 else P_ATOM)

    def int_arith(self, depth: int) -> E | None:
        op = self.rng.choices(["+", "-", "*"], [5, 3, 2])[0]
        a = self.operand(INT, depth)
        if op == "*" and self.rng.random() < 0.6:
            b = E(str(self.rng.choice([2, 2, 3, 3, 4, 5, 10])))
        else:
            b = self.operand(INT, depth)
        if a.text == b.text or (a.text.lstrip("-").isdigit() and b.text.lstrip("-").isdigit()):
            return None
        prec = P_ADD if op in "+-" else P_MUL
        return E(f"{a.at(prec)} {op} {b.at(prec + 1)}", prec)

    def int_divmod(self, depth: int) -> E | None:
        a = self.operand(INT, depth)
        if a.text.isdigit():
            return None
        op = self.rng.choice(["//", "%", "%"])
        k = self.rng.choice([2, 2, 3, 3, 4, 5, 7, 10, 10])
        return E(f"{a.at(P_MUL)} {op} {k}", P_MUL)

    def int_pow(self, depth: int) -> E | None:
        name = self.vname(INT)
        return E(f"{name} ** 2", P_POW) if name else None

    def int_unary(self, depth: int) -> E | None:
        a = self.operand(INT, depth)
        if a.text.lstrip("-").isdigit():
            return None
        if self.rng.random() < 0.7:
            return E(f"abs({a.text})")
        return E(f"-{a.at(P_UNARY)}", P_UNARY)

    def int_minmax(self, depth: int) -> E | None:
        a, b = self.operand(INT, depth), self.operand(INT, depth)
        if a.text == b.text:
            return None
        return E(f"{self.choose('min', 'max')}({a.text}, {b.text})")

    def int_aggregate(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.55:
            name = self.vname(LINT)
            if not name:
                return None
            kind = self.rng.choices(["sum", "max", "min"], [4, 2, 2])[0]
            if kind == "sum":
                return E(f"sum({name})")
            if self.ctx.nonempty(name):
                return E(f"{kind}({name})")
            return E(f"{kind}({name}, default={self.rng.choice([0, 0, -1])})")
        if r < 0.8:
            name = self.vname(DSI) or self.vname(DII)
            if not name:
                return None
            return E(
                self.choose(
                    f"sum({name}.values())",
                    f"max({name}.values(), default=0)",
                    f"min({name}.values(), default=0)",
                )
            )
        name = self.vname(SINT)
        if not name:
            return None
        return E(self.choose(f"sum({name})", f"max({name}, default=0)", f"len({name})"))

    def int_index(self, depth: int) -> E | None:
        name = self.vname(LINT)
        if name:
            idx = self.ctx.index_exprs(name)
            if idx and self.rng.random() < 0.85:
                return E(f"{name}[{self.rng.choice(idx)}]")
            if self.ctx.nonempty(name):
                return E(f"{name}[{self.choose('0', '-1', '0', 'len(' + name + ') // 2')}]")
            if self.rng.random() < 0.25:
                at = self.choose("0", "-1")
                return E(f"{name}[{at}] if {name} else 0", P_IFEXP)
        return None

    def int_from_str(self, depth: int) -> E | None:
        v = self.ctx.pick(STR)
        if v is None:
            return None
        s = v.name
        r = self.rng.random()
        if v.char and r < 0.3:
            return E(
                self.choose(
                    f"ord({s})", f"ord({s}) - ord('a')", f"int({s}) if {s}.isdigit() else 0"
                )
            )
        if r < 0.2:
            return E(f"{s}.count({str_lit(self.rng.choice(NONEMPTY_STRS))})")
        if r < 0.35:
            return E(f"{s}.find({str_lit(self.rng.choice(NONEMPTY_STRS))})")
        if r < 0.5:
            return E(f"len({s}.split())")
        if r < 0.65:
            return E(f"int({s}) if {s}.isdigit() else {self.rng.choice([0, 0, -1, 1])}", P_IFEXP)
        if r < 0.8:
            return E(f"sum(1 for ch in {s} if ch{self._char_test()})")
        return E(f"len({s})")

    def _char_test(self) -> str:
        return self.choose(
            ".isdigit()",
            ".isalpha()",
            ".isupper()",
            " in 'aeiou'",
            " == ' '",
            ".islower()",
            ' in "aeiou"',
            ".isspace()",
            " != ' '",
        )

    def int_from_list(self, depth: int) -> E | None:
        name = self.vname(LINT)
        if not name:
            return None
        x = self.operand(INT, depth)
        r = self.rng.random()
        if r < 0.4:
            return E(f"{name}.count({x.text})")
        if r < 0.7:
            return E(f"{name}.index({x.text}) if {x.at(P_CMP + 1)} in {name} else -1", P_IFEXP)
        return E(f"len(set({name}))")

    def int_from_dict(self, depth: int) -> E | None:
        if self.rng.random() < 0.7:
            name = self.vname(DSI)
            key_t = STR
        else:
            name = self.vname(DII)
            key_t = INT
        if not name:
            return None
        known = self.ctx.keys_in(name)
        if known and self.rng.random() < 0.7:
            return E(f"{name}[{self.rng.choice(known)}]")
        key = self.operand(key_t, depth)
        if key_t == STR and self.rng.random() < 0.3:
            key = E(str_lit(self.rng.choice(WORDS)))
        return E(f"{name}.get({key.text}, {self.rng.choice([0, 0, 0, 1, -1])})")

    def int_comprehension(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.55:
            src = self.vname(LINT)
            if not src:
                return None
            x = self.bound_name("int", src)
            if self.rng.random() < 0.5:
                cond = self.with_bound(x, INT, lambda: self.focused(BOOL, x, 1))
                return E(f"sum(1 for {x} in {src} if {cond.text})")
            val = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
            if self.rng.random() < 0.5:
                cond = self.with_bound(x, INT, lambda: self.focused(BOOL, x, 1))
                return E(f"sum({val.text} for {x} in {src} if {cond.at(P_OR)})")
            return E(f"sum({val.text} for {x} in {src})")
        src = self.vname(LSTR)
        if not src:
            return None
        w = self.bound_name("str", src)
        if self.rng.random() < 0.5:
            return E(f"sum(len({w}) for {w} in {src})")
        cond = self.with_bound(w, STR, lambda: self.focused(BOOL, w, 1))
        return E(f"len([{w} for {w} in {src} if {cond.at(P_OR)}])")

    def int_from_float(self, depth: int) -> E | None:
        name = self.vname(FLOAT)
        if not name:
            return None
        return E(self.choose(f"round({name})", f"int({name})", f"round({name} * 10)"))

    def int_key_max(self, depth: int) -> E | None:
        src = self.vname(LINT)
        if not src:
            return None
        x = self.bound_name("int", src)
        key = self.with_bound(x, INT, lambda: self.focused(INT, x, 1))
        fn = self.choose("max", "min")
        return E(f"{fn}({src}, key=lambda {x}: {key.text}, default=0)")

    def pair_part(self, depth: int) -> E | None:
        name = self.vname(PAIR)
        return E(f"{name}[{self.choose('0', '1')}]") if name else None

    def float_div(self, depth: int) -> E | None:
        a = self.operand(INT, depth)
        r = self.rng.random()
        if r < 0.4:
            src = self.vname(LINT)
            if not src:
                return None
            if self.ctx.nonempty(src):
                return E(f"sum({src}) / len({src})", P_MUL)
            return E(f"sum({src}) / len({src}) if {src} else 0.0", P_IFEXP)
        if r < 0.7:
            return E(f"{a.at(P_MUL)} / {self.rng.choice([2, 3, 4, 10])}", P_MUL)
        b = self.vname(INT)
        if not b or b == a.text:
            return None
        return E(f"{a.at(P_MUL)} / max({b}, 1)", P_MUL)

    def float_round(self, depth: int) -> E | None:
        name = self.vname(FLOAT)
        if not name:
            return None
        return E(
            self.choose(f"round({name}, 2)", f"round({name}, 1)", f"{name} * 2", f"{name} - 0.5")
        )
