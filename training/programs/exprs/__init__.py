"""Typed random expressions over the variables in scope.

Why: the generator writes real everyday Python, so every expression is built by a production
of the type it must have (an ``int`` can be ``len(words)``, ``total // 3``, ``d.get(key, 0)``,
``sum(x * 2 for x in xs if x > 0)`` ...). Productions that could raise at run time are only
offered under a guard or a fact that makes them safe (``xs[i]`` inside
``for i in range(len(xs))``, ``max(xs, default=0)``, ``a // 3``); the try/except statements
of :mod:`..statements` are where errors are allowed to happen on purpose.

Each family of productions is a mixin in its own module (:mod:`.numbers`, :mod:`.bools`,
:mod:`.strings`, :mod:`.lists`, :mod:`.containers`, :mod:`.calls`) over the driver and helpers
of :mod:`.core`; :class:`Exprs` composes them and builds the one table that weighs the
productions of each type against each other.
"""

from __future__ import annotations

from ..scope import BOOL, DII, DSI, DSL, FLOAT, INT, LINT, LSTR, PAIR, SINT, STR, Ctx, E, str_lit
from .bools import Bools
from .calls import Calls
from .containers import Containers
from .core import NONEMPTY_STRS, SEPARATORS, SMALL_STRS, Production, small_int
from .lists import Lists
from .numbers import Numbers
from .strings import Strings

__all__ = ["NONEMPTY_STRS", "SEPARATORS", "SMALL_STRS", "Exprs", "Production", "small_int"]


class Exprs(Numbers, Bools, Strings, Lists, Containers, Calls):
    """Expression productions, keyed by type, reading the variables of a :class:`Ctx`."""

    def __init__(self, ctx: Ctx) -> None:
        super().__init__(ctx)
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
