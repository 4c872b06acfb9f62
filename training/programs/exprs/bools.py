"""``bool`` expressions: comparisons, membership, string predicates, and/or/not, any/all.

Why: conditions decide which line runs next; each one reads at least one variable so the
branch depends on the program's values, not on a constant.
"""

from __future__ import annotations

from ..names import WORDS
from ..scope import (
    BOOL,
    DSI,
    DSL,
    INT,
    LINT,
    LSTR,
    P_AND,
    P_CMP,
    P_MUL,
    P_NOT,
    P_OR,
    SINT,
    STR,
    E,
    str_lit,
)
from .core import (
    NONEMPTY_STRS,
    ExprsCore,
    is_number,
    small_int,
)


class Bools(ExprsCore):
    """Productions of type ``bool``."""

    def bool_compare(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.6:
            a = self.operand(INT, depth)
            b = E(str(small_int(self.rng))) if self.rng.random() < 0.5 else self.operand(INT, depth)
            if a.text == b.text or (is_number(a.text) and is_number(b.text)):
                return None
            op = self.rng.choices(["<", ">", "<=", ">=", "==", "!="], [3, 3, 2, 2, 2, 1])[0]
            if a.text.lstrip("-").isdigit():
                a, b = b, a
            return E(f"{a.at(P_CMP + 1)} {op} {b.at(P_CMP + 1)}", P_CMP)
        if r < 0.75:
            a = self.operand(INT, depth)
            if a.text.isdigit():
                return None
            k = self.rng.choice([2, 2, 3, 5])
            return E(f"{a.at(P_MUL)} % {k} {self.choose('==', '!=')} 0", P_CMP)
        if r < 0.9:
            s = self.vname(STR)
            if not s:
                return None
            other = self.choose(str_lit(self.rng.choice(WORDS)), str_lit(""), "")
            if not other:
                o = self.vname(STR)
                if not o or o == s:
                    return None
                other = o
            return E(f"{s} {self.choose('==', '!=')} {other}", P_CMP)
        t = self.rng.choice([LINT, LSTR, STR, DSI])
        name = self.vname(t)
        if not name:
            return None
        return E(f"len({name}) {self.choose('>', '<', '>=', '==')} {small_int(self.rng)}", P_CMP)

    def bool_member(self, depth: int) -> E | None:
        r = self.rng.random()
        neg = self.choose(" in ", " in ", " not in ")
        if r < 0.35:
            coll = self.vname(self.rng.choice([LINT, SINT, SINT]))
            if not coll:
                return None
            x = self.operand(INT, depth)
            return E(f"{x.at(P_CMP + 1)}{neg}{coll}", P_CMP)
        if r < 0.6:
            d = self.vname(self.rng.choice([DSI, DSI, DSL]))
            if not d:
                return None
            k = self.operand(STR, depth)
            return E(f"{k.at(P_CMP + 1)}{neg}{d}", P_CMP)
        if r < 0.75:
            coll = self.vname(LSTR)
            if not coll:
                return None
            k = self.operand(STR, depth)
            return E(f"{k.at(P_CMP + 1)}{neg}{coll}", P_CMP)
        s = self.ctx.pick(STR)
        if not s:
            return None
        if s.char:
            box = self.choose('"aeiou"', "'aeiou'", '"AEIOU"', '" .,!?"', '"0123456789"', "VOWELS")
            if box == "VOWELS" and "VOWELS" not in self.ctx.vars:
                box = '"aeiou"'
            return E(f"{s.name}{neg}{box}", P_CMP)
        sub = str_lit(self.rng.choice(NONEMPTY_STRS + WORDS[:10]))
        return E(f"{sub}{neg}{s.name}", P_CMP)

    def bool_str_pred(self, depth: int) -> E | None:
        s = self.vname(STR)
        if not s:
            return None
        r = self.rng.random()
        if r < 0.35:
            m = self.choose("startswith", "endswith")
            arg = str_lit(self.rng.choice((*NONEMPTY_STRS, "a", "b", "s", "t", "ing", "ed")))
            return E(f"{s}.{m}({arg})")
        if r < 0.85:
            m = self.choose(
                "isdigit", "isalpha", "isupper", "islower", "isalnum", "isspace", "istitle"
            )
            return E(f"{s}.{m}()")
        return E(f"{s} == {s}[::-1]", P_CMP)

    def bool_logic(self, depth: int) -> E | None:
        if depth <= 0:
            return None
        r = self.rng.random()
        if r < 0.3:
            a = self.sub(BOOL, depth)
            if a.prec <= P_CMP or not self.is_real_test(a.text):
                return None
            return E(f"not {a.at(P_NOT)}", P_NOT)
        op, prec = ("and", P_AND) if r < 0.7 else ("or", P_OR)
        a, b = self.sub(BOOL, depth), self.sub(BOOL, depth)
        if a.text == b.text or not self.is_real_test(a.text) or not self.is_real_test(b.text):
            return None
        return E(f"{a.at(prec)} {op} {b.at(prec + 1)}", prec)

    def bool_any_all(self, depth: int) -> E | None:
        fn = self.choose("any", "all")
        if self.rng.random() < 0.6:
            src = self.vname(LINT)
            if not src:
                return None
            x = self.bound_name("int", src)
            cond = self.with_bound(x, INT, lambda: self.focused(BOOL, x, 1))
        else:
            src = self.vname(self.rng.choice([LSTR, STR]))
            if not src:
                return None
            kind = "char" if self.ctx.vars[src].type == STR else "str"
            x = self.bound_name(kind, src)
            cond = self.with_bound(x, STR, lambda: self.focused(BOOL, x, 1), char=kind == "char")
        return E(f"{fn}({cond.text} for {x} in {src})")

    def bool_collection(self, depth: int) -> E | None:
        name = self.vname(LINT)
        if not name:
            return None
        return E(
            self.choose(
                f"{name} == sorted({name})",
                f"len(set({name})) == len({name})",
                f"bool({name})",
                f"{name} == {name}[::-1]",
            ),
            P_CMP,
        )
