"""Typed random expressions over the variables in scope.

Why: the generator writes real everyday Python, so every expression is built by a production
of the type it must have (an ``int`` can be ``len(words)``, ``total // 3``, ``d.get(key, 0)``,
``sum(x * 2 for x in xs if x > 0)`` ...). Productions that could raise at run time are only
offered under a guard or a fact that makes them safe (``xs[i]`` inside
``for i in range(len(xs))``, ``max(xs, default=0)``, ``a // 3``); the try/except statements
of ``statements.py`` are where errors are allowed to happen on purpose.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from .names import WORDS
from .scope import (
    BOOL,
    DII,
    DSI,
    DSL,
    FLOAT,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_AND,
    P_ATOM,
    P_BAND,
    P_BOR,
    P_CMP,
    P_IFEXP,
    P_MUL,
    P_NOT,
    P_OR,
    P_POW,
    P_UNARY,
    PAIR,
    SINT,
    STR,
    Ctx,
    E,
    Sig,
    Var,
    is_obj,
    lit,
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


class Exprs:
    """Expression productions, keyed by type, reading the variables of a :class:`Ctx`."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.rng: random.Random = ctx.rng
        self.table: dict[str, list[tuple[float, Production, bool]]] = {
            INT: [
                (3, self.int_lit, True),
                (9, lambda d: self.var(INT), True),
                (4, self.len_of, True),
                (6, self.int_arith, False),
                (3, self.int_divmod, False),
                (0.7, self.int_pow, False),
                (2, self.int_unary, False),
                (2, self.int_minmax, False),
                (4, self.int_aggregate, False),
                (3, self.int_index, False),
                (3, self.int_from_str, False),
                (1.5, self.int_from_list, False),
                (3, self.int_from_dict, False),
                (2, self.int_comprehension, False),
                (0.4, self.ifexp_of(INT), False),
                (4, self.call_of(INT), False),
                (3, self.obj_of(INT), False),
                (0.8, self.int_from_float, False),
                (0.6, self.int_key_max, False),
                (1, self.pair_part, False),
            ],
            BOOL: [
                (4, lambda d: self.var(BOOL), True),
                (0.4, lambda d: E(self.rng.choice(["True", "False"])), True),
                (9, self.bool_compare, False),
                (5, self.bool_member, False),
                (4, self.bool_str_pred, False),
                (2.5, self.bool_logic, False),
                (2, self.bool_any_all, False),
                (1, self.bool_collection, False),
                (3, self.call_of(BOOL), False),
                (2, self.obj_of(BOOL), False),
            ],
            FLOAT: [
                (4, lambda d: self.var(FLOAT), True),
                (5, self.float_div, False),
                (2, self.float_round, False),
                (1, self.call_of(FLOAT), False),
            ],
            STR: [
                (6, lambda d: self.var(STR), True),
                (2, lambda d: E(str_lit(self.rng.choice(SMALL_STRS))), True),
                (6, self.str_method, False),
                (4, self.str_slice, False),
                (3, self.str_concat, False),
                (4, self.str_join, False),
                (2, self.str_of_int, False),
                (3, self.str_fstring, False),
                (2, self.str_index, False),
                (0.4, self.ifexp_of(STR), False),
                (4, self.call_of(STR), False),
                (2, self.obj_of(STR), False),
                (0.6, self.str_caesar, False),
                (1, self.str_pick_word, False),
                (1, self.str_split_part, False),
            ],
            LINT: [
                (3, lambda d: self.var(LINT), True),
                (1, self.lint_lit, True),
                (3, self.lint_sorted, False),
                (3, self.lint_slice, False),
                (1.5, self.lint_concat, False),
                (6, self.lint_comprehension, False),
                (2, self.lint_map_filter, False),
                (1, self.lint_range, False),
                (2, self.lint_from_other, False),
                (4, self.call_of(LINT), False),
                (2, self.obj_of(LINT), False),
            ],
            LSTR: [
                (3, lambda d: self.var(LSTR), True),
                (0.8, self.lstr_lit, True),
                (4, self.lstr_split, False),
                (3, self.lstr_sorted, False),
                (5, self.lstr_comprehension, False),
                (2, self.lstr_slice, False),
                (1.5, self.lstr_map, False),
                (2, self.lstr_from_other, False),
                (3, self.call_of(LSTR), False),
                (1, self.obj_of(LSTR), False),
            ],
            DSI: [
                (3, lambda d: self.var(DSI), True),
                (2, lambda d: E(self.rng.choice(["{}", "{}", "dict()"])), True),
                (0.8, self.dsi_lit, True),
                (6, self.dsi_comprehension, False),
                (2, self.call_of(DSI), False),
            ],
            DII: [
                (3, lambda d: self.var(DII), True),
                (2, lambda d: E("{}"), True),
                (5, self.dii_comprehension, False),
                (2, self.call_of(DII), False),
            ],
            DSL: [(1, lambda d: E("{}"), True)],
            SINT: [
                (3, lambda d: self.var(SINT), True),
                (2, lambda d: E("set()"), True),
                (4, self.sint_build, False),
                (3, self.sint_ops, False),
                (2, self.call_of(SINT), False),
            ],
            PAIR: [
                (3, lambda d: self.var(PAIR), True),
                (4, self.pair_build, False),
                (2, self.call_of(PAIR), False),
            ],
        }

    # ------------------------------------------------------------------ driver

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
        return any(name in self.ctx.vars for name in _IDENT.findall(text))

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
            if _mentions_name(e.text, name):
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

    # ------------------------------------------------------------------ int

    def int_lit(self, depth: int) -> E:
        n = small_int(self.rng)
        return E(str(n), P_UNARY if n < 0 else P_ATOM)

    def len_of(self, depth: int) -> E | None:
        t = self.rng.choice([STR, LINT, LSTR, DSI, DII, SINT, STR, LINT, DSL])
        name = self.vname(t)
        return E(f"len({name})") if name else None

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

    # ------------------------------------------------------------------ bool

    def bool_compare(self, depth: int) -> E | None:
        r = self.rng.random()
        if r < 0.6:
            a = self.operand(INT, depth)
            b = E(str(small_int(self.rng))) if self.rng.random() < 0.5 else self.operand(INT, depth)
            if a.text == b.text or (_is_number(a.text) and _is_number(b.text)):
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

    # ------------------------------------------------------------------ float

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

    # ------------------------------------------------------------------ str

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

    # ------------------------------------------------------------------ list[int]

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

    # ------------------------------------------------------------------ list[str]

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

    # ------------------------------------------------------------------ dicts and sets

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

    # ------------------------------------------------------------------ calls, objects

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
            if wrap and not (a.text[:1] in "[\"'" or _is_number(a.text)):
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


def _is_number(text: str) -> bool:
    return text.lstrip("-").replace(".", "", 1).isdigit()


_IDENT = re.compile(r"(?<![\w.'\"])[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?")


def _mentions_name(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None
