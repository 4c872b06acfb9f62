"""Statements, blocks and control flow for generated function bodies and scripts.

Why: a debugger model must see every everyday statement form step by step: assignments that
grow accumulators, list/dict/set mutation, if/elif/else, for loops over ranges, lists,
strings, ``dict.items()``, ``enumerate`` and ``zip``, while loops, break/continue, try/except
around operations that really fail, calls into helpers and methods. Each production writes
one statement (or one compound statement with its blocks) that is valid in the current
scope. Loops terminate by construction: ``for`` runs over a value that does not change while
it runs (the collection is frozen for the loop's body), ``while`` runs on a counter that moves
toward a small bound, or on a stack that only shrinks.

Each family of statements is a mixin in its own module (:mod:`.assignments`,
:mod:`.mutations`, :mod:`.calls`, :mod:`.branches`, :mod:`.loops`, :mod:`.idioms`,
:mod:`.exceptions`) over the shared state and helpers of :mod:`.core`; :class:`Body` composes
them and holds the one table that weighs them against each other.
"""

from __future__ import annotations

from .assignments import Assignments
from .branches import Branches
from .calls import Calls
from .core import COPIERS, DECL_TYPES, DECL_WEIGHTS, Producer
from .exceptions import Exceptions
from .idioms import Idioms
from .loops import Loops
from .mutations import Mutations

__all__ = ["COPIERS", "DECL_TYPES", "DECL_WEIGHTS", "Body", "Producer"]


class Body(Assignments, Mutations, Calls, Branches, Loops, Idioms, Exceptions):
    """Writes statements into a :class:`~..scope.Ctx`."""

    def productions(self) -> list[tuple[float, Producer]]:
        ctx = self.ctx
        nest_ok = ctx.nesting < 3
        few_vars = sum(1 for v in ctx.vars.values() if v.kind != "global") < 3
        in_loop = ctx.loop_depth > 0
        table: list[tuple[float, Producer]] = [
            (14 if few_vars else 8, self.declare),
            (6, self.int_update),
            (2.5, self.reassign),
            (2.5, self.str_accumulate),
            (6, self.list_mutation),
            (4, self.dict_mutation),
            (2, self.set_mutation),
            (1.2, self.group_append),
            (2.5, self.unpack),
            (2.5, self.call_helper),
            (4, self.object_statement),
        ]
        if nest_ok:
            table += [
                (6, self.if_statement),
                (2, self.if_assign),
                (1.0, self.try_statement),
            ]
            if ctx.loop_depth == 0:
                table.append((5, self.idiom))
            if ctx.loop_depth < 2:
                table += [(8 if ctx.loop_depth == 0 else 2.5, self.for_loop)]
                table += [(1.6 if ctx.loop_depth == 0 else 0.4, self.while_loop)]
        if in_loop and nest_ok:
            table.append((3, self.break_continue))
        if ctx.prints_left > 0 and ctx.loop_depth == 0:
            table.append((2.5 if ctx.level == "module" else 1.2, self.print_statement))
        if ctx.ret is not None and ctx.level != "module" and nest_ok and ctx.nesting >= 0:
            table.append((1.2 if in_loop else 0.6, self.early_return))
        if ctx.yield_type is not None and in_loop:
            table.append((9, self.yield_statement))
        if ctx.self_class is not None:
            table.append((3, self.self_call))
        return table
