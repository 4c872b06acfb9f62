"""Statements, blocks and control flow for generated function bodies and scripts.

Why: a debugger model must see every everyday statement form step by step: assignments that
grow accumulators, list/dict/set mutation, if/elif/else, for loops over ranges, lists,
strings, ``dict.items()``, ``enumerate`` and ``zip``, while loops, break/continue, try/except
around operations that really fail, calls into helpers and methods. Each production here
writes one statement (or one compound statement with its blocks) that is valid in the current
scope. Loops terminate by construction: ``for`` runs over a value that does not change while it
runs (the collection is frozen for the loop's body), ``while`` runs on a counter that moves
toward a small bound, or on a stack that only shrinks.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .exprs import Exprs
from .names import WORDS
from .scope import (
    BOOL,
    COLLECTIONS,
    DII,
    DSI,
    DSL,
    FLOAT,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_CMP,
    P_MUL,
    PAIR,
    SINT,
    STR,
    Ctx,
    E,
    Sig,
    Var,
    elem_of,
    is_obj,
    str_lit,
)

Producer = Callable[[], bool]

DECL_TYPES = (INT, BOOL, STR, LINT, LSTR, DSI, DII, SINT, PAIR, FLOAT, DSL)
DECL_WEIGHTS = (30, 7, 16, 16, 8, 8, 4, 5, 2, 2, 1.5)

COPIERS = {
    LINT: ("list({})", "{}[:]", "{}.copy()", "sorted({})"),
    LSTR: ("list({})", "{}[:]", "{}.copy()"),
    DSI: ("dict({})", "{}.copy()"),
    DII: ("dict({})", "{}.copy()"),
    SINT: ("set({})", "{}.copy()"),
    DSL: ("{{}}",),
}


class Body:
    """Writes statements into a :class:`Ctx`."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.rng: random.Random = ctx.rng
        self.x = Exprs(ctx)

    # ------------------------------------------------------------------ driver

    def block(self, n: int) -> None:
        """About ``n`` statements at the current level (fewer when the budget runs out)."""
        for _ in range(n):
            if self.ctx.budget <= 0:
                break
            self.statement()

    def statement(self) -> None:
        table = self.productions()
        for _ in range(12):
            weights = [w for w, _ in table]
            _, producer = self.rng.choices(table, weights)[0]
            if producer():
                self.ctx.budget -= 1
                return
        self.declare()
        self.ctx.budget -= 1

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

    # ------------------------------------------------------------------ helpers

    def emit(self, line: str) -> None:
        self.ctx.emit(line)

    def decl_type(self) -> str:
        return self.rng.choices(DECL_TYPES, DECL_WEIGHTS)[0]

    def value_for(self, t: str, depth: int | None = None) -> E:
        """An expression to bind to a new variable: never an alias of a collection."""
        if depth is None:
            depth = self.rng.choice([1, 2, 2, 3])
        e = self.x.gen(t, depth)
        return self.no_alias(t, e)

    def no_alias(self, t: str, e: E) -> E:
        var = self.ctx.vars.get(e.text)
        if t in COLLECTIONS and var is not None:
            return E(self.rng.choice(COPIERS[t]).format(e.text))
        return e

    def writable(self, t: str) -> list[Var]:
        return [v for v in self.ctx.vars.values() if v.type == t and self.ctx.can_write(v.name)]

    def mutable(self, types: tuple[str, ...], *, shrink: bool = False) -> list[Var]:
        return [
            v
            for v in self.ctx.vars.values()
            if v.type in types and self.ctx.can_mutate(v.name, shrink=shrink)
        ]

    def cond(self, depth: int = 2) -> E:
        return self.x.condition(depth)

    def sub_block(self, n: int | None = None) -> None:
        if n is None:
            n = self.rng.choice([1, 1, 2, 2, 3])
        self.ctx.budget += 0  # the compound statement paid for itself
        for _ in range(n):
            self.statement()

    def elem_expr(self, t: str, avoid: str | None = None) -> E:
        """A value to put into a collection, preferring the focus (a loop variable)."""
        for _ in range(4):
            e = self.x.gen(t, self.rng.choice([0, 1, 1, 2]))
            if avoid is None or avoid not in e.text:
                return e
        return self.x.fallback(t)

    # ------------------------------------------------------------------ simple statements

    def declare(self) -> bool:
        ctx = self.ctx
        objs = [c for c in ctx.module.classes]
        if objs and self.rng.random() < 0.12:
            return self.new_object()
        t = self.decl_type()
        e = self.value_for(t)
        name = ctx.fresh(t)
        self.emit(f"{name} = {e.text}")
        ctx.bind(name, t, char=False)
        return True

    def new_object(self) -> bool:
        ctx = self.ctx
        info = self.rng.choice(ctx.module.classes)
        if sum(1 for v in ctx.vars.values() if v.type == f"obj:{info.name}") >= 2:
            return False
        name = ctx.fresh(f"obj:{info.name}", info.var_names)
        args = []
        for _, t in info.init_params:
            args.append(self.no_alias(t, self.x.operand(t, 1)).text)
        self.emit(f"{name} = {info.name}({', '.join(args)})")
        ctx.bind(name, f"obj:{info.name}")
        return True

    def int_update(self) -> bool:
        cands = self.writable(INT)
        if not cands:
            return False
        v = self.rng.choice(cands)
        r = self.rng.random()
        other = self.elem_expr(INT, avoid=v.name)
        if other.text in ("0", "1", "-1"):
            other = E(str(self.rng.choice([2, 3, 5])))
        if r < 0.35:
            line = f"{v.name} += {other.text}"
        elif r < 0.47:
            line = f"{v.name} += 1"
        elif r < 0.57:
            line = f"{v.name} -= {other.text}"
        elif r < 0.67:
            line = f"{v.name} = {self.x.choose('max', 'min')}({v.name}, {other.text})"
        elif r < 0.74:
            line = f"{v.name} *= {self.rng.choice([2, 3, -1])}"
        elif r < 0.82:
            line = f"{v.name} {self.x.choose('//=', '%=')} {self.rng.choice([2, 3, 10])}"
        elif r < 0.9:
            line = f"{v.name} = {v.name} * 10 + {other.at(P_MUL)} % 10"
        else:
            line = f"{v.name} = abs({v.name} - {other.at(P_ADD + 1)})"
        self.emit(line)
        self.ctx.changed(v.name)
        return True

    def reassign(self) -> bool:
        cands = [
            v
            for v in self.ctx.vars.values()
            if not is_obj(v.type) and v.type != DSL and self.ctx.can_write(v.name)
        ]
        if not cands:
            return False
        v = self.rng.choice(cands)
        e = self.x.focused(v.type, v.name, self.rng.choice([1, 2]))
        if e.text == v.name:
            return False
        e = self.no_alias(v.type, e)
        self.emit(f"{v.name} = {e.text}")
        self.ctx.changed(v.name)
        return True

    def str_accumulate(self) -> bool:
        cands = self.writable(STR)
        if not cands:
            return False
        v = self.rng.choice(cands)
        piece = self.elem_expr(STR, avoid=v.name)
        if piece.text == v.name:
            return False
        r = self.rng.random()
        if r < 0.6:
            self.emit(f"{v.name} += {piece.text}")
        elif r < 0.8:
            self.emit(f"{v.name} = {piece.at(P_ADD)} + {v.name}")
        else:
            self.emit(f"{v.name} += {str_lit(self.rng.choice(['-', ' ', ',', '*', '.']))}")
        self.ctx.changed(v.name)
        return True

    def list_mutation(self) -> bool:
        ctx = self.ctx
        # Sorting and item assignment keep the size: allowed even on a list being iterated.
        cands = [
            v
            for v in ctx.vars.values()
            if v.type in (LINT, LSTR) and v.kind in ("local", "param", "attr") and not v.shared
        ]
        if not cands:
            return False
        v = self.rng.choice(cands)
        et = elem_of(v.type)
        r = self.rng.random()
        if r < 0.57 and not ctx.can_mutate(v.name):
            return False
        if r < 0.4:
            self.emit(f"{v.name}.append({self.elem_expr(et, avoid=v.name).text})")
            return True
        if r < 0.48:
            other = self.x.gen(v.type, 1)
            if v.name in other.text:
                return False
            self.emit(f"{v.name}.extend({other.text})")
            return True
        if r < 0.53:
            self.emit(f"{v.name}.insert(0, {self.elem_expr(et, avoid=v.name).text})")
            return True
        if r < 0.57:
            self.emit(f"{v.name} += [{self.elem_expr(et, avoid=v.name).text}]")
            return True
        if r < 0.66:
            if v.type == LINT:
                self.emit(
                    self.x.choose(
                        f"{v.name}.sort()", f"{v.name}.sort(reverse=True)", f"{v.name}.reverse()"
                    )
                )
            else:
                self.emit(
                    self.x.choose(
                        f"{v.name}.sort()", f"{v.name}.sort(key=len)", f"{v.name}.reverse()"
                    )
                )
            return True
        if r < 0.76:
            idx = ctx.index_exprs(v.name)
            if not idx and not ctx.nonempty(v.name):
                return False
            at = self.rng.choice(idx) if idx else self.x.choose("0", "-1")
            op = "+=" if v.type == LINT and self.rng.random() < 0.4 else "="
            self.emit(f"{v.name}[{at}] {op} {self.elem_expr(et, avoid=v.name).text}")
            return True
        if not ctx.can_mutate(v.name, shrink=True):
            return False
        if r < 0.88:
            pop = self.x.choose(f"{v.name}.pop()", f"{v.name}.pop()", f"{v.name}.pop(0)")
            if ctx.nonempty(v.name):
                if self.rng.random() < 0.5:
                    name = ctx.fresh(et, self.x.choose(("last", "top", "item"), ("first", "head")))
                    self.emit(f"{name} = {pop}")
                    ctx.changed(v.name)
                    ctx.bind(name, et)
                    return True
                self.emit(pop)
                ctx.changed(v.name)
                return True
            self.emit(f"if {v.name}:")
            with ctx.block():
                self.emit(pop)
            ctx.changed(v.name)
            return True
        if r < 0.96:
            item = self.elem_expr(et, avoid=v.name)
            self.emit(f"if {item.at(P_CMP + 1)} in {v.name}:")
            with ctx.block():
                self.emit(f"{v.name}.remove({item.text})")
            ctx.changed(v.name)
            return True
        if ctx.nonempty(v.name):
            self.emit(f"del {v.name}[{self.x.choose('0', '-1')}]")
        else:
            self.emit(f"{v.name}.clear()")
        ctx.changed(v.name)
        return True

    def dict_key(self, d: Var) -> E:
        kt = STR if d.type in (DSI, DSL) else INT
        known = self.ctx.keys_in(d.name)
        if known and self.rng.random() < 0.5:
            return E(self.rng.choice(known))
        if kt == STR and self.rng.random() < 0.25:
            return E(str_lit(self.rng.choice(WORDS)))
        return self.elem_expr(kt, avoid=d.name)

    def dict_mutation(self) -> bool:
        ctx = self.ctx
        cands = self.mutable((DSI, DII))
        if not cands:
            return False
        d = self.rng.choice(cands)
        key = self.dict_key(d)
        r = self.rng.random()
        if r < 0.25:
            self.emit(f"{d.name}[{key.text}] = {self.elem_expr(INT, avoid=d.name).text}")
        elif r < 0.45:
            step = self.x.choose("1", "1", self.elem_expr(INT, avoid=d.name).at(P_ADD + 1))
            self.emit(f"{d.name}[{key.text}] = {d.name}.get({key.text}, 0) + {step}")
        elif r < 0.55:
            self.emit(f"if {key.at(P_CMP + 1)} in {d.name}:")
            with ctx.block():
                step = self.x.choose("1", self.elem_expr(INT, avoid=d.name).text)
                self.emit(f"{d.name}[{key.text}] += {step}")
            self.emit("else:")
            with ctx.block():
                first = self.x.choose("1", "0", self.elem_expr(INT, avoid=d.name).text)
                self.emit(f"{d.name}[{key.text}] = {first}")
        elif r < 0.63:
            default = self.x.choose("0", "1", self.elem_expr(INT, avoid=d.name).text)
            self.emit(f"{d.name}.setdefault({key.text}, {default})")
        elif r < 0.72:
            other = self.x.gen(d.type, 1)
            if other.text == d.name:
                return False
            if other.text in ("{}", "dict()"):
                other = E(f"{{{key.text}: {self.elem_expr(INT, avoid=d.name).text}}}")
            self.emit(f"{d.name}.update({other.text})")
        else:
            if not ctx.can_mutate(d.name, shrink=True):
                return False
            known = ctx.keys_in(d.name)
            if known and r < 0.8:
                self.emit(f"del {d.name}[{self.rng.choice(known)}]")
            elif r < 0.9:
                name = ctx.fresh(INT, ("removed", "old", "dropped", "prev_count"))
                self.emit(f"{name} = {d.name}.pop({key.text}, {self.x.choose('0', '-1')})")
                ctx.changed(d.name)
                ctx.bind(name, INT)
                return True
            else:
                self.emit(f"{d.name}.pop({key.text}, None)")
            ctx.changed(d.name)
        return True

    def set_mutation(self) -> bool:
        cands = self.mutable((SINT,))
        if not cands:
            return False
        s = self.rng.choice(cands)
        r = self.rng.random()
        item = self.elem_expr(INT, avoid=s.name)
        if r < 0.5:
            self.emit(f"{s.name}.add({item.text})")
            return True
        if r < 0.65:
            src = self.x.vname(LINT)
            if not src:
                return False
            self.emit(self.x.choose(f"{s.name}.update({src})", f"{s.name} |= set({src})"))
            return True
        if not self.ctx.can_mutate(s.name, shrink=True):
            return False
        if r < 0.85:
            self.emit(f"{s.name}.discard({item.text})")
        else:
            self.emit(f"if {item.at(P_CMP + 1)} in {s.name}:")
            with self.ctx.block():
                self.emit(f"{s.name}.remove({item.text})")
        self.ctx.changed(s.name)
        return True

    def group_append(self) -> bool:
        ctx = self.ctx
        cands = self.mutable((DSL,))
        if not cands:
            if ctx.loop_depth > 0 or self.rng.random() < 0.5:
                return False
            name = ctx.fresh(DSL)
            self.emit(f"{name} = {{}}")
            ctx.bind(name, DSL)
            return True
        g = self.rng.choice(cands)
        key = self.dict_key(g)
        val = self.elem_expr(INT, avoid=g.name)
        if self.rng.random() < 0.6:
            self.emit(f"{g.name}.setdefault({key.text}, []).append({val.text})")
        else:
            self.emit(f"if {key.at(P_CMP + 1)} not in {g.name}:")
            with ctx.block():
                self.emit(f"{g.name}[{key.text}] = []")
            self.emit(f"{g.name}[{key.text}].append({val.text})")
        return True

    def unpack(self) -> bool:
        ctx = self.ctx
        r = self.rng.random()
        if r < 0.2:
            for t in self.rng.sample([INT, STR, LINT], 3):
                cands = self.writable(t)
                if len(cands) >= 2:
                    a, b = self.rng.sample(cands, 2)
                    self.emit(f"{a.name}, {b.name} = {b.name}, {a.name}")
                    ctx.changed(a.name)
                    ctx.changed(b.name)
                    return True
            return False
        if r < 0.4:
            a = self.x.operand(INT, 1)
            if a.text.lstrip("-").isdigit():
                return False
            q = ctx.fresh(INT, ("q", "quotient", "tens", "whole", "div"))
            rem = ctx.fresh(INT, ("r", "rem", "remainder", "ones", "extra", "mod"))
            if q == rem:
                return False
            self.emit(f"{q}, {rem} = divmod({a.text}, {self.rng.choice([2, 3, 5, 10])})")
            ctx.bind(q, INT)
            ctx.bind(rem, INT)
            return True
        if r < 0.6:
            src = self.x.vname(LINT)
            if not src:
                return False
            lo = ctx.fresh(INT, ("lo", "low", "smallest", "least"))
            hi = ctx.fresh(INT, ("hi", "high", "largest", "most"))
            if lo == hi:
                return False
            if ctx.nonempty(src):
                self.emit(f"{lo}, {hi} = min({src}), max({src})")
            else:
                self.emit(f"{lo}, {hi} = (min({src}), max({src})) if {src} else (0, 0)")
            ctx.bind(lo, INT)
            ctx.bind(hi, INT)
            return True
        if r < 0.72:
            src = self.x.vname(self.rng.choice([LINT, LSTR]))
            if not src or not ctx.nonempty(src):
                return False
            t = ctx.vars[src].type
            first = ctx.fresh(elem_of(t), ("first", "head", "top"))
            rest = ctx.fresh(t, ("rest", "tail", "others", "remaining"))
            if first == rest:
                return False
            self.emit(f"{first}, *{rest} = {src}")
            ctx.bind(first, elem_of(t))
            ctx.bind(rest, t)
            return True
        if r < 0.82:
            p = self.x.vname(PAIR)
            if not p:
                return False
            a = ctx.fresh(INT, ("a", "lo", "start", "x0"))
            b = ctx.fresh(INT, ("b", "hi", "end", "x1"))
            if a == b:
                return False
            self.emit(f"{a}, {b} = {p}")
            ctx.bind(a, INT)
            ctx.bind(b, INT)
            return True
        if r < 0.9:
            s = self.x.vname(STR)
            if not s:
                return False
            head = ctx.fresh(STR, ("head", "before", "left", "name"))
            tail = ctx.fresh(STR, ("tail", "after", "right", "value"))
            if head == tail:
                return False
            sep = str_lit(self.rng.choice([":", "=", " ", ",", "-"]))
            self.emit(f"{head}, _, {tail} = {s}.partition({sep})")
            ctx.bind(head, STR)
            ctx.bind(tail, STR)
            return True
        t = self.rng.choice([INT, STR])
        e1, e2 = self.x.gen(t, 1), self.x.gen(t, 1)
        a, b = ctx.fresh(t), ctx.fresh(t)
        if a == b:
            return False
        self.emit(f"{a}, {b} = {e1.text}, {e2.text}")
        ctx.bind(a, t)
        ctx.bind(b, t)
        return True

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

    def early_return(self) -> bool:
        ctx = self.ctx
        assert ctx.ret is not None
        cond = self.cond(2)
        self.emit(f"if {cond.text}:")
        with ctx.block():
            self.emit(f"return {self.return_value(1).text}")
        ctx.returns_early += 1
        return True

    def return_value(self, depth: int = 1) -> E:
        ctx = self.ctx
        assert ctx.ret is not None
        own = [v for v in ctx.vars.values() if v.type == ctx.ret and v.kind in ("local", "loop")]
        if own and self.rng.random() < 0.6:
            weights = [3.0 if v.uses <= 1 else 1.0 for v in own]
            e = E(self.rng.choices(own, weights)[0].name)
        else:
            e = self.x.gen(ctx.ret, depth)
            for _ in range(6):
                if self.x.is_real_test(e.text):
                    break
                e = self.x.gen(ctx.ret, depth + 1)
        var = ctx.vars.get(e.text)
        if var is not None and var.type in COLLECTIONS and var.kind in ("param", "attr", "global"):
            e = E(self.rng.choice(COPIERS[var.type]).format(e.text))
        return e

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

    # ------------------------------------------------------------------ compound statements

    def fact_condition(
        self,
    ) -> tuple[str, tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
        """A condition and the facts it gives its body and its else branch."""
        ctx = self.ctx
        r = self.rng.random()
        if r < 0.25:
            v = ctx.pick(self.rng.choice([LINT, LSTR, STR, LINT]))
            if v is not None:
                if self.rng.random() < 0.7:
                    text = self.x.choose(f"{v.name}", f"len({v.name}) > 0", f"{v.name}")
                    return text, (("nonempty", v.name),), ()
                return f"not {v.name}", (), (("nonempty", v.name),)
        elif r < 0.4:
            d = ctx.pick(self.rng.choice([DSI, DII]))
            if d is not None:
                key = self.dict_key(d)
                if key.text.isidentifier() or key.text[0] in "'\"":
                    return f"{key.at(P_CMP + 1)} in {d.name}", (("key", key.text, d.name),), ()
        elif r < 0.5:
            seq = ctx.pick(self.rng.choice([LINT, LSTR, STR]))
            i = ctx.pick(INT)
            if seq is not None and i is not None and i.name != seq.name:
                return (
                    f"0 <= {i.name} < len({seq.name})",
                    (("index", i.name, seq.name),),
                    (),
                )
        return self.cond(2).text, (), ()

    def if_statement(self) -> bool:
        ctx = self.ctx
        text, facts, else_facts = self.fact_condition()
        self.emit(f"if {text}:")
        with ctx.block(facts=facts):
            self.sub_block()
        n_elif = self.rng.choices([0, 1, 2], [10, 3, 1])[0]
        for _ in range(n_elif):
            self.emit(f"elif {self.cond(2).text}:")
            with ctx.block():
                self.sub_block(self.rng.choice([1, 1, 2]))
        if else_facts or self.rng.random() < 0.45:
            self.emit("else:")
            with ctx.block(facts=else_facts):
                self.sub_block(self.rng.choice([1, 1, 2]))
        return True

    def if_assign(self) -> bool:
        ctx = self.ctx
        t = self.rng.choice([INT, INT, STR, STR, BOOL, LINT])
        name = ctx.fresh(t)
        ctx.name_types[name] = t
        text, facts, _ = self.fact_condition()
        self.emit(f"if {text}:")
        with ctx.block(facts=facts):
            if self.rng.random() < 0.3:
                self.statement()
            self.emit(f"{name} = {self.value_for(t, 1).text}")
        if self.rng.random() < 0.3:
            self.emit(f"elif {self.cond(1).text}:")
            with ctx.block():
                self.emit(f"{name} = {self.value_for(t, 1).text}")
        self.emit("else:")
        with ctx.block():
            self.emit(f"{name} = {self.value_for(t, 1).text}")
        ctx.bind(name, t)
        return True

    def break_continue(self) -> bool:
        ctx = self.ctx
        kind = ctx.loops[-1]
        word = "break"
        if kind in ("for", "drain") and self.rng.random() < 0.5:
            word = "continue"
        self.emit(f"if {self.cond(2).text}:")
        with ctx.block():
            if self.rng.random() < 0.3:
                self.statement()
            self.emit(word)
        return True

    def loop_body(self, n: int | None = None) -> None:
        if n is None:
            n = self.rng.choice([1, 2, 2, 3, 3])
        for _ in range(n):
            self.statement()

    def for_loop(self) -> bool:
        ctx = self.ctx
        r = self.rng.random()
        inner = ctx.loop_depth > 0
        gens = [s for s in ctx.callables if s.kind == "generator"]
        if gens and r < 0.08:
            sig = self.rng.choice(gens)
            sig.calls += 1
            assert sig.elem is not None
            v = ctx.loop_name("int" if sig.elem == INT else "str")
            self.emit(f"for {v} in {sig.name}({self.x.call_args(sig, 1)}):")
            with ctx.block(loop="for"):
                ctx.bind(v, sig.elem, kind="loop")
                ctx.focus = v
                self.loop_body()
            return True
        if r < 0.3:
            return self.for_each(inner)
        if r < 0.5:
            return self.for_range(inner)
        if r < 0.62:
            return self.for_enumerate()
        if r < 0.7:
            return self.for_zip()
        if r < 0.82:
            return self.for_dict()
        if r < 0.92:
            return self.for_string()
        return self.for_expression(inner)

    def for_each(self, inner: bool) -> bool:
        ctx = self.ctx
        seq = ctx.pick(self.rng.choice([LINT, LINT, LSTR, SINT]))
        if seq is None:
            return False
        t = elem_of(seq.type)
        v = ctx.loop_name("int" if t == INT else "str", seq.name)
        src = seq.name if seq.type != SINT else f"sorted({seq.name})"
        if inner and seq.type != SINT and self.rng.random() < 0.5:
            src = f"{seq.name}[:{self.rng.choice([2, 3, 4])}]"
        self.emit(f"for {v} in {src}:")
        with ctx.block(loop="for", freeze=(seq.name,)):
            ctx.bind(v, t, kind="loop")
            ctx.focus = v
            self.loop_body()
        return True

    def for_range(self, inner: bool) -> bool:
        ctx = self.ctx
        i = ctx.loop_name("index")
        r = self.rng.random()
        facts: tuple[tuple[str, ...], ...] = ()
        freeze: tuple[str, ...] = ()
        outer_idx = [(f[1], f[2]) for f in ctx.facts if f[0] == "index" and f[1].isidentifier()]
        if inner and outer_idx and r < 0.5:
            j, seq = self.rng.choice(outer_idx)
            src = f"range({j} + 1, len({seq}))"
            facts = (("index", i, seq),)
            freeze = (seq,)
        elif r < 0.45:
            seq = ctx.pick(self.rng.choice([LINT, LSTR, STR, LINT]))
            if seq is None:
                return False
            form = self.rng.choice(["plain", "plain", "from1", "upto"])
            if form == "plain":
                src = f"range(len({seq.name}))"
                facts = (("index", i, seq.name),)
            elif form == "from1":
                src = f"range(1, len({seq.name}))"
                facts = (("index", i, seq.name), ("index", f"{i} - 1", seq.name))
            else:
                src = f"range(len({seq.name}) - 1)"
                facts = (("index", i, seq.name), ("index", f"{i} + 1", seq.name))
            freeze = (seq.name,)
        else:
            bound = self.x.int_bound() if not inner else E(str(self.rng.choice([2, 3, 3, 4])))
            if self.rng.random() < 0.2:
                src = f"range(1, {bound.at(P_ADD)} + 1)"
            elif self.rng.random() < 0.1:
                src = f"range({bound.text}, 0, -1)"
            else:
                src = f"range({bound.text})"
        self.emit(f"for {i} in {src}:")
        with ctx.block(loop="for", freeze=freeze, facts=facts):
            ctx.bind(i, INT, kind="loop")
            ctx.focus = i
            self.loop_body()
        return True

    def for_enumerate(self) -> bool:
        ctx = self.ctx
        seq = ctx.pick(self.rng.choice([LINT, LSTR, STR]))
        if seq is None:
            return False
        t = elem_of(seq.type)
        i = ctx.loop_name("index")
        kind = "char" if seq.type == STR else ("int" if t == INT else "str")
        v = ctx.loop_name(kind, seq.name)
        if v == i:
            return False
        start = self.x.choose("", "", "", ", 1", ", start=1")
        facts = (("index", i, seq.name),) if not start else ()
        self.emit(f"for {i}, {v} in enumerate({seq.name}{start}):")
        with ctx.block(loop="for", freeze=(seq.name,), facts=facts):
            ctx.bind(i, INT, kind="loop")
            ctx.bind(v, t, kind="loop", char=kind == "char")
            ctx.focus = v
            self.loop_body()
        return True

    def for_zip(self) -> bool:
        ctx = self.ctx
        a = ctx.pick(self.rng.choice([LINT, LSTR, STR]))
        b = ctx.pick(self.rng.choice([LINT, LINT, LSTR]))
        if a is None or b is None:
            return False
        same = a.name == b.name
        if same and a.type != LINT:
            return False
        ka = "char" if a.type == STR else ("int" if elem_of(a.type) == INT else "str")
        kb = "int" if elem_of(b.type) == INT else "str"
        va = ctx.loop_name(ka, a.name)
        vb = ctx.loop_name(kb, b.name if not same else None)
        if va == vb:
            return False
        src_b = f"{b.name}[1:]" if same else b.name
        self.emit(f"for {va}, {vb} in zip({a.name}, {src_b}):")
        with ctx.block(loop="for", freeze=(a.name, b.name)):
            ctx.bind(va, elem_of(a.type), kind="loop", char=ka == "char")
            ctx.bind(vb, elem_of(b.type), kind="loop")
            ctx.focus = self.rng.choice([va, vb])
            self.loop_body()
        return True

    def for_dict(self) -> bool:
        ctx = self.ctx
        d = ctx.pick(self.rng.choice([DSI, DSI, DII, DSL]))
        if d is None:
            return False
        kt = STR if d.type in (DSI, DSL) else INT
        k = ctx.loop_name("key_str" if kt == STR else "key_int")
        r = self.rng.random()
        if d.type == DSL:
            v = ctx.fresh(LINT, ("vals", "group", "members", "bucket"))
            vt = LINT
        else:
            v = ctx.loop_name("val_int")
            vt = INT
        if v == k:
            return False
        if r < 0.6:
            src = self.x.choose(
                f"{d.name}.items()", f"{d.name}.items()", f"sorted({d.name}.items())"
            )
            self.emit(f"for {k}, {v} in {src}:")
            with ctx.block(loop="for", freeze=(d.name,), facts=(("key", k, d.name),)):
                ctx.bind(k, kt, kind="loop")
                ctx.bind(v, vt, kind="loop")
                ctx.focus = self.rng.choice([k, v])
                self.loop_body()
            return True
        if r < 0.85 or d.type == DSL:
            src = self.x.choose(d.name, f"sorted({d.name})", f"{d.name}.keys()")
            self.emit(f"for {k} in {src}:")
            with ctx.block(loop="for", freeze=(d.name,), facts=(("key", k, d.name),)):
                ctx.bind(k, kt, kind="loop")
                ctx.focus = k
                self.loop_body()
            return True
        self.emit(f"for {v} in {d.name}.values():")
        with ctx.block(loop="for", freeze=(d.name,)):
            ctx.bind(v, vt, kind="loop")
            ctx.focus = v
            self.loop_body()
        return True

    def for_string(self) -> bool:
        ctx = self.ctx
        s = ctx.pick(STR)
        if s is None:
            return False
        r = self.rng.random()
        if r < 0.65:
            c = ctx.loop_name("char")
            self.emit(f"for {c} in {s.name}:")
            with ctx.block(loop="for", freeze=(s.name,)):
                ctx.bind(c, STR, kind="loop", char=True)
                ctx.focus = c
                self.loop_body()
            return True
        w = ctx.loop_name("str", "words")
        sep = self.x.choose("", "", str_lit(","), str_lit(" "))
        self.emit(f"for {w} in {s.name}.split({sep}):")
        with ctx.block(loop="for"):
            ctx.bind(w, STR, kind="loop")
            ctx.focus = w
            self.loop_body()
        return True

    def for_expression(self, inner: bool) -> bool:
        ctx = self.ctx
        t = self.rng.choice([LINT, LSTR])
        seq = ctx.pick(t)
        if seq is None:
            return False
        name = seq.name
        src = self.x.choose(
            f"sorted({name})",
            f"{name}[1:]",
            f"reversed({name})",
            f"{name}[::-1]",
            f"sorted(set({name}))",
            f"{name}[::2]",
        )
        freeze = (name,) if src.startswith("reversed") else ()
        v = ctx.loop_name("int" if t == LINT else "str", name)
        self.emit(f"for {v} in {src}:")
        with ctx.block(loop="for", freeze=freeze):
            ctx.bind(v, elem_of(t), kind="loop")
            ctx.focus = v
            self.loop_body()
        return True

    def while_loop(self) -> bool:
        forms = [
            (4, self.while_countdown),
            (3, self.while_countup),
            (2.5, self.while_drain),
            (1.5, self.while_digits),
            (0.7, self.while_gcd),
            (1, self.while_binary_search),
            (1.5, self.while_two_pointers),
            (1, self.while_until),
        ]
        for _ in range(4):
            producer = self.rng.choices([f for _, f in forms], [w for w, _ in forms])[0]
            if producer():
                return True
        return False

    def while_countdown(self) -> bool:
        ctx = self.ctx
        k = ctx.fresh(INT, ("k", "remaining", "left", "countdown", "tries", "budget", "n"))
        bound = self.x.int_bound()
        self.emit(f"{k} = {bound.text}")
        ctx.bind(k, INT)
        halve = self.rng.random() < 0.2
        self.emit(f"while {k} > 0:")
        with ctx.block(loop="while", freeze=(k,)):
            self.loop_body(self.rng.choice([1, 2, 2, 3]))
            self.emit(f"{k} //= 2" if halve else f"{k} -= 1")
        return True

    def while_countup(self) -> bool:
        ctx = self.ctx
        i = ctx.fresh(INT, ("i", "j", "idx", "pos", "step"))
        seq = ctx.pick(self.rng.choice([LINT, LSTR, STR]))
        facts: tuple[tuple[str, ...], ...] = ()
        freeze: tuple[str, ...] = (i,)
        if seq is not None and self.rng.random() < 0.7:
            bound = f"len({seq.name})"
            facts = (("index", i, seq.name),)
            freeze = (i, seq.name)
        else:
            bound = self.x.int_bound().text
        self.emit(f"{i} = 0")
        ctx.bind(i, INT)
        self.emit(f"while {i} < {bound}:")
        with ctx.block(loop="while", freeze=freeze, facts=facts):
            self.loop_body(self.rng.choice([1, 2, 2, 3]))
            self.emit(f"{i} += {self.x.choose('1', '1', '1', '2')}")
        return True

    def while_drain(self) -> bool:
        ctx = self.ctx
        src_t = self.rng.choice([LINT, LINT, LSTR, STR])
        src = ctx.pick(src_t)
        if src is None:
            return False
        t = LINT if src_t == LINT else LSTR
        stack = ctx.fresh(t, ("stack", "queue", "todo", "pending", "work"))
        if src_t == STR:
            init = self.x.choose(f"list({src.name})", f"{src.name}.split()")
        else:
            init = self.x.choose(f"list({src.name})", f"sorted({src.name})", f"{src.name}[:]")
        self.emit(f"{stack} = {init}")
        ctx.bind(stack, t)
        self.emit(f"while {stack}:")
        with ctx.block(loop="drain", freeze=(stack,)):
            et = elem_of(t)
            item = ctx.fresh(et, ("item", "top", "cur", "current", "node", "head"))
            self.emit(f"{item} = {stack}.pop({self.x.choose('', '', '0')})")
            ctx.bind(item, et)
            ctx.focus = item
            self.loop_body(self.rng.choice([1, 2, 2, 3]))
        return True

    def while_digits(self) -> bool:
        ctx = self.ctx
        src = self.x.operand(INT, 1)
        m = ctx.fresh(INT, ("m", "rest", "num", "value", "n"))
        digit = ctx.fresh(INT, ("digit", "d", "last", "ones"))
        if m == digit:
            return False
        self.emit(f"{m} = abs({src.text})")
        ctx.bind(m, INT)
        self.emit(f"while {m} > 0:")
        with ctx.block(loop="while", freeze=(m,)):
            self.emit(f"{digit} = {m} % {self.x.choose('10', '10', '2')}")
            ctx.bind(digit, INT)
            ctx.focus = digit
            self.loop_body(self.rng.choice([1, 1, 2]))
            self.emit(f"{m} //= {self.x.choose('10', '10', '2')}")
        return True

    def while_gcd(self) -> bool:
        ctx = self.ctx
        a_src, b_src = self.x.operand(INT, 1), self.x.operand(INT, 1)
        a = ctx.fresh(INT, ("a", "x", "p"))
        b = ctx.fresh(INT, ("b", "y", "q"))
        if a == b or a_src.text == b_src.text:
            return False
        self.emit(f"{a}, {b} = abs({a_src.text}), abs({b_src.text})")
        ctx.bind(a, INT)
        ctx.bind(b, INT)
        self.emit(f"while {b}:")
        with ctx.block(loop="while", freeze=(a, b)):
            self.emit(f"{a}, {b} = {b}, {a} % {b}")
        return True

    def while_binary_search(self) -> bool:
        ctx = self.ctx
        src = ctx.pick(LINT)
        if src is None:
            return False
        target = self.x.operand(INT, 1)
        ordered = ctx.fresh(LINT, ("ordered", "sorted_xs", "arr", "ranked"))
        lo = ctx.fresh(INT, ("lo", "low", "left"))
        hi = ctx.fresh(INT, ("hi", "high", "right"))
        mid = ctx.fresh(INT, ("mid", "middle", "m"))
        pos = ctx.fresh(INT, ("pos", "where", "found_at", "index"))
        if len({lo, hi, mid, pos, ordered}) < 5 or target.text in (lo, hi, mid, pos, ordered):
            return False
        self.emit(f"{ordered} = sorted({src.name})")
        self.emit(f"{lo}, {hi} = 0, len({ordered}) - 1")
        self.emit(f"{pos} = -1")
        self.emit(f"while {lo} <= {hi}:")
        ctx.bind(ordered, LINT)
        with ctx.block(loop="while", freeze=(ordered,)):
            self.emit(f"{mid} = ({lo} + {hi}) // 2")
            self.emit(f"if {ordered}[{mid}] == {target.at(P_CMP + 1)}:")
            with ctx.block():
                self.emit(f"{pos} = {mid}")
                self.emit("break")
            self.emit(f"elif {ordered}[{mid}] < {target.at(P_CMP + 1)}:")
            with ctx.block():
                self.emit(f"{lo} = {mid} + 1")
            self.emit("else:")
            with ctx.block():
                self.emit(f"{hi} = {mid} - 1")
        ctx.bind(pos, INT)
        return True

    def while_two_pointers(self) -> bool:
        ctx = self.ctx
        seq = ctx.pick(self.rng.choice([LINT, STR, STR, LSTR]))
        if seq is None:
            return False
        left = ctx.fresh(INT, ("left", "lo", "i", "start"))
        right = ctx.fresh(INT, ("right", "hi", "j", "end"))
        if left == right:
            return False
        self.emit(f"{left}, {right} = 0, len({seq.name}) - 1")
        ctx.bind(left, INT)
        ctx.bind(right, INT)
        self.emit(f"while {left} < {right}:")
        facts = (("index", left, seq.name), ("index", right, seq.name))
        with ctx.block(loop="while", freeze=(left, right, seq.name), facts=facts):
            if self.rng.random() < 0.4:
                self.emit(f"if {seq.name}[{left}] != {seq.name}[{right}]:")
                with ctx.block():
                    if self.rng.random() < 0.5:
                        self.statement()
                    self.emit("break")
            else:
                self.loop_body(self.rng.choice([1, 2]))
            self.emit(f"{left} += 1")
            self.emit(f"{right} -= 1")
        return True

    def while_until(self) -> bool:
        ctx = self.ctx
        acc = ctx.fresh(INT, ("total", "acc", "level", "size", "filled"))
        steps = ctx.fresh(INT, ("steps", "rounds", "turns", "count"))
        if acc == steps:
            return False
        limit = self.rng.choice([10, 20, 30, 50, 100])
        cap = self.rng.choice([4, 5, 6, 8])
        self.emit(f"{acc}, {steps} = 0, 0")
        ctx.bind(acc, INT)
        ctx.bind(steps, INT)
        self.emit(f"while {acc} < {limit} and {steps} < {cap}:")
        with ctx.block(loop="while", freeze=(steps,)):
            inc = self.elem_expr(INT, avoid=acc)
            self.loop_body(self.rng.choice([0, 1, 1, 2]))
            self.emit(f"{acc} += abs({inc.text}) + 1")
            self.emit(f"{steps} += 1")
        return True

    # ------------------------------------------------------------------ idioms

    def idiom(self) -> bool:
        """A common loop pattern: count, filter, running best, dedupe, build a string."""
        forms = [
            (3, self.idiom_count),
            (3, self.idiom_filter),
            (2, self.idiom_best),
            (2, self.idiom_total),
            (1.5, self.idiom_dedupe),
            (1.5, self.idiom_build_string),
            (1.2, self.idiom_positions),
            (1, self.idiom_pairs),
            (1.5, self.idiom_most_common),
        ]
        producer = self.rng.choices([f for _, f in forms], [w for w, _ in forms])[0]
        return producer()

    def _iterate(self, *types: str) -> tuple[str, str, str, bool] | None:
        """Pick something to loop over: (source text, loop variable, element type, is char)."""
        ctx = self.ctx
        seq = ctx.pick(self.rng.choice(types))
        if seq is None:
            return None
        if seq.type == STR:
            if self.rng.random() < 0.4:
                return f"{seq.name}.split()", ctx.loop_name("str", "words"), STR, False
            return seq.name, ctx.loop_name("char"), STR, True
        et = elem_of(seq.type)
        v = ctx.loop_name("int" if et == INT else "str", seq.name)
        return seq.name, v, et, False

    def _loop(self, src: str, v: str, et: str, char: bool, body: Callable[[], None]) -> None:
        ctx = self.ctx
        name = src.split(".")[0].split("[")[0]
        self.emit(f"for {v} in {src}:")
        freeze = (name,) if name in ctx.vars else ()
        with ctx.block(loop="for", freeze=freeze):
            ctx.bind(v, et, kind="loop", char=char)
            ctx.focus = v
            body()

    def idiom_count(self) -> bool:
        ctx = self.ctx
        it = self._iterate(LSTR, STR, LINT, LSTR)
        if it is None:
            return False
        src, v, et, char = it
        d_t = DSI if et == STR else DII
        d = ctx.fresh(d_t, ("counts", "freq", "tally", "seen", "hist"))
        self.emit(f"{d} = {{}}")
        ctx.bind(d, d_t)
        key = v
        if et == STR and self.rng.random() < 0.3:
            key = f"{v}.lower()"
        elif et == INT and self.rng.random() < 0.3:
            key = f"{v} % {self.rng.choice([2, 3, 5, 10])}"

        def body() -> None:
            if self.rng.random() < 0.3:
                self.emit(f"if {self.x.focused(BOOL, v, 1).text}:")
                with ctx.block():
                    self._count_line(d, key)
            else:
                self._count_line(d, key)
            if self.rng.random() < 0.3:
                self.statement()

        self._loop(src, v, et, char, body)
        return True

    def _count_line(self, d: str, key: str) -> None:
        r = self.rng.random()
        if r < 0.6:
            self.emit(f"{d}[{key}] = {d}.get({key}, 0) + 1")
        elif r < 0.8:
            self.emit(f"if {key} in {d}:")
            with self.ctx.block():
                self.emit(f"{d}[{key}] += 1")
            self.emit("else:")
            with self.ctx.block():
                self.emit(f"{d}[{key}] = 1")
        else:
            self.emit(f"{d}.setdefault({key}, 0)")
            self.emit(f"{d}[{key}] += 1")

    def idiom_filter(self) -> bool:
        ctx = self.ctx
        it = self._iterate(LINT, LSTR, STR, LINT)
        if it is None:
            return False
        src, v, et, char = it
        out_t = LINT if et == INT else LSTR
        if self.rng.random() < 0.25:
            out_t = LINT if out_t == LSTR else LSTR
        out = ctx.fresh(out_t, ("out", "result", "kept", "picked", "selected", "found"))
        self.emit(f"{out} = []")
        ctx.bind(out, out_t)

        def body() -> None:
            cond = self.x.focused(BOOL, v, 1)
            value = self.x.focused(elem_of(out_t), v, 1)
            self.emit(f"if {cond.text}:")
            with ctx.block():
                if self.rng.random() < 0.3:
                    self.statement()
                self.emit(f"{out}.append({value.text})")
            if self.rng.random() < 0.3:
                self.emit("else:")
                with ctx.block():
                    self.statement()

        self._loop(src, v, et, char, body)
        return True

    def idiom_best(self) -> bool:
        ctx = self.ctx
        it = self._iterate(LINT, LSTR, LINT)
        if it is None:
            return False
        src, v, et, char = it
        key = v if et == INT else f"len({v})"
        if et == INT and self.rng.random() < 0.3:
            key = self.x.focused(INT, v, 1).text
        best = ctx.fresh(et, ("best", "biggest", "top", "winner", "longest", "smallest"))
        init = self.x.choose("0", "-1", "None") if et == INT else str_lit("")
        if init == "None":
            init = str(self.rng.choice([-100, -1000, 100]))
        cmp = self.x.choose(">", ">", "<", ">=")
        self.emit(f"{best} = {init}")
        ctx.bind(best, et)
        best_key = best if et == INT else f"len({best})"
        if et == INT and key != v:
            best_key = best

        def body() -> None:
            self.emit(f"if {key} {cmp} {best_key}:")
            with ctx.block():
                self.emit(f"{best} = {key if et == INT else v}")
                if self.rng.random() < 0.25:
                    self.statement()

        self._loop(src, v, et, char, body)
        return True

    def idiom_total(self) -> bool:
        ctx = self.ctx
        it = self._iterate(LINT, LSTR, LINT, STR)
        if it is None:
            return False
        src, v, et, char = it
        total = ctx.fresh(INT, ("total", "acc", "score", "count", "weight", "points"))
        self.emit(f"{total} = 0")
        ctx.bind(total, INT)

        def body() -> None:
            value = self.x.focused(INT, v, 1)
            if self.rng.random() < 0.4:
                self.emit(f"if {self.x.focused(BOOL, v, 1).text}:")
                with ctx.block():
                    self.emit(f"{total} += {value.text}")
                if self.rng.random() < 0.4:
                    self.emit("else:")
                    with ctx.block():
                        self.emit(f"{total} {self.x.choose('-=', '+=')} {self.x.choose('1', '2')}")
            else:
                self.emit(f"{total} += {value.text}")

        self._loop(src, v, et, char, body)
        return True

    def idiom_dedupe(self) -> bool:
        ctx = self.ctx
        src = ctx.pick(LINT)
        if src is None:
            return False
        seen = ctx.fresh(SINT, ("seen", "visited", "used"))
        out = ctx.fresh(LINT, ("unique", "out", "result", "firsts"))
        v = ctx.loop_name("int", src.name)
        if len({seen, out, v}) < 3:
            return False
        self.emit(f"{seen} = set()")
        self.emit(f"{out} = []")
        ctx.bind(seen, SINT)
        ctx.bind(out, LINT)

        def body() -> None:
            key = v if self.rng.random() < 0.7 else f"{v} % {self.rng.choice([3, 5, 10])}"
            self.emit(f"if {key} not in {seen}:")
            with ctx.block():
                self.emit(f"{seen}.add({key})")
                self.emit(f"{out}.append({v})")
            if self.rng.random() < 0.3:
                self.emit("else:")
                with ctx.block():
                    self.statement()

        self._loop(src.name, v, INT, False, body)
        return True

    def idiom_build_string(self) -> bool:
        ctx = self.ctx
        s = ctx.pick(self.rng.choice([STR, STR, LSTR]))
        if s is None:
            return False
        out = ctx.fresh(STR, ("out", "result", "clean", "buf", "encoded", "masked"))
        self.emit(f"{out} = {str_lit('')}")
        ctx.bind(out, STR)
        if s.type == STR:
            v, char = ctx.loop_name("char"), True
        else:
            v, char = ctx.loop_name("str", s.name), False

        def body() -> None:
            self.emit(f"if {self.x.focused(BOOL, v, 1).text}:")
            with ctx.block():
                self.emit(f"{out} += {self.x.focused(STR, v, 1).text}")
            r = self.rng.random()
            if r < 0.6:
                self.emit("else:")
                with ctx.block():
                    self.emit(
                        f"{out} += {self.x.choose(v, str_lit('_'), str_lit('*'), v + '.lower()')}"
                    )
            elif r < 0.8:
                self.emit(f"elif {self.x.focused(BOOL, v, 1).text}:")
                with ctx.block():
                    self.emit("continue")

        self._loop(s.name, v, STR, char, body)
        return True

    def idiom_positions(self) -> bool:
        ctx = self.ctx
        seq = ctx.pick(self.rng.choice([LSTR, LINT, STR]))
        if seq is None:
            return False
        t = DSI if seq.type in (LSTR, STR) else DII
        d = ctx.fresh(t, ("positions", "index", "last_seen", "where", "lookup"))
        i = ctx.loop_name("index")
        kind = "char" if seq.type == STR else ("str" if seq.type == LSTR else "int")
        v = ctx.loop_name(kind, seq.name)
        if len({d, i, v}) < 3:
            return False
        self.emit(f"{d} = {{}}")
        ctx.bind(d, t)
        self.emit(f"for {i}, {v} in enumerate({seq.name}):")
        with ctx.block(loop="for", freeze=(seq.name,), facts=(("index", i, seq.name),)):
            ctx.bind(i, INT, kind="loop")
            ctx.bind(v, elem_of(seq.type), kind="loop", char=kind == "char")
            if self.rng.random() < 0.4:
                self.emit(f"if {v} not in {d}:")
                with ctx.block():
                    self.emit(f"{d}[{v}] = {i}")
            else:
                self.emit(f"{d}[{v}] = {i}")
        return True

    def idiom_most_common(self) -> bool:
        ctx = self.ctx
        d = ctx.pick(self.rng.choice([DSI, DSI, DII]))
        if d is None:
            if not self.idiom_count():
                return False
            d = next(v for v in reversed(ctx.vars.values()) if v.type in (DSI, DII))
        kt = STR if d.type == DSI else INT
        best = ctx.fresh(kt, ("best", "winner", "top_key", "most_common"))
        most = ctx.fresh(INT, ("most", "best_count", "top", "highest"))
        k = ctx.loop_name("key_str" if kt == STR else "key_int")
        v = ctx.loop_name("val_int")
        if len({best, most, k, v}) < 4:
            return False
        self.emit(f"{best}, {most} = {str_lit('') if kt == STR else '-1'}, 0")
        ctx.bind(best, kt)
        ctx.bind(most, INT)
        src = self.x.choose(f"{d.name}.items()", f"{d.name}.items()", f"sorted({d.name}.items())")
        self.emit(f"for {k}, {v} in {src}:")
        with ctx.block(loop="for", freeze=(d.name,), facts=(("key", k, d.name),)):
            ctx.bind(k, kt, kind="loop")
            ctx.bind(v, INT, kind="loop")
            self.emit(f"if {v} {self.x.choose('>', '>', '>=')} {most}:")
            with ctx.block():
                self.emit(f"{best}, {most} = {k}, {v}")
        return True

    def idiom_pairs(self) -> bool:
        ctx = self.ctx
        seq = ctx.pick(LINT)
        if seq is None:
            return False
        i, j = ctx.loop_name("index"), None
        ctx.name_types[i] = INT
        j = ctx.fresh(INT, ("j", "k", "other"))
        count = ctx.fresh(INT, ("count", "pairs", "matches", "hits"))
        if len({i, j, count}) < 3:
            return False
        target = self.x.operand(INT, 0)
        self.emit(f"{count} = 0")
        ctx.bind(count, INT)
        n = seq.name
        self.emit(f"for {i} in range(len({n})):")
        with ctx.block(loop="for", freeze=(n,), facts=(("index", i, n),)):
            ctx.bind(i, INT, kind="loop")
            self.emit(f"for {j} in range({i} + 1, len({n})):")
            with ctx.block(loop="for", facts=(("index", j, n),)):
                ctx.bind(j, INT, kind="loop")
                test = self.x.choose(
                    f"{n}[{i}] + {n}[{j}] == {target.at(P_CMP + 1)}",
                    f"{n}[{i}] > {n}[{j}]",
                    f"{n}[{i}] == {n}[{j}]",
                    f"abs({n}[{i}] - {n}[{j}]) <= {self.rng.choice([1, 2, 3])}",
                )
                self.emit(f"if {test}:")
                with ctx.block():
                    self.emit(f"{count} += 1")
        return True

    # ------------------------------------------------------------------ try/except

    def try_statement(self) -> bool:
        ctx = self.ctx
        raising = [
            s for s in ctx.callables if s.raises and s.kind != "generator" and s.ret is not None
        ]
        objs_raising = []
        for v in ctx.vars.values():
            if is_obj(v.type):
                info = next(c for c in ctx.module.classes if c.name == v.type[4:])
                objs_raising += [(v, m) for m in info.methods if m.raises]
        r = self.rng.random()
        if (raising or objs_raising) and r < 0.45:
            return self.try_custom(raising, objs_raising)
        forms = [self.try_index, self.try_key, self.try_zero, self.try_value]
        self.rng.shuffle(forms)
        return any(form() for form in forms[:2])

    def _try(
        self,
        risky: str,
        target: str | None,
        t: str | None,
        exc: str,
        fallback: E | None,
        *,
        bind_as: str | None = None,
    ) -> None:
        ctx = self.ctx
        if target is not None and t is not None:
            ctx.name_types[target] = t
        self.emit("try:")
        with ctx.block(catching=(exc,)):
            self.emit(risky)
            if self.rng.random() < 0.25:
                self.statement()
        as_part = f" as {bind_as}" if bind_as else ""
        self.emit(f"except {exc}{as_part}:")
        with ctx.block():
            if bind_as:
                ctx.bind(bind_as, "exc", kind="loop")
            if target is not None and fallback is not None:
                self.emit(f"{target} = {fallback.text}")
            if bind_as and self.rng.random() < 0.7:
                msgs = [v for v in self.mutable((LSTR,))]
                if msgs:
                    self.emit(f"{self.rng.choice(msgs).name}.append(str({bind_as}))")
                elif ctx.prints_left > 0 and ctx.loop_depth == 0:
                    self.emit(f'print("error:", {bind_as})')
                    ctx.prints_left -= 1
            if target is None and ctx.loops and ctx.loops[-1] in ("for", "drain"):
                self.emit("continue")
            elif target is None:
                self.emit("pass")
        if self.rng.random() < 0.12 and target is not None:
            self.emit("else:")
            with ctx.block():
                self.statement()
        if self.rng.random() < 0.08 and ctx.level != "generator":
            self.emit("finally:")
            with ctx.block():
                cands = self.writable(INT)
                if cands:
                    self.emit(f"{self.rng.choice(cands).name} += 1")
                else:
                    self.emit("pass")
        if target is not None and t is not None:
            ctx.bind(target, t)

    def _exc_name(self, p: float = 0.3) -> str | None:
        if self.rng.random() < p:
            return self.ctx.fresh("exc", ("err", "exc", "error", "e"))
        return None

    def try_index(self) -> bool:
        ctx = self.ctx
        seq = ctx.pick(self.rng.choice([LINT, LSTR, STR]))
        if seq is None:
            return False
        et = elem_of(seq.type)
        idx = self.x.operand(INT, 1)
        if self.rng.random() < 0.3:
            idx = E(str(self.rng.choice([0, 1, 2, 3, 5, 8, -1])))
        target = ctx.fresh(et, ("picked", "value", "item", "chosen", "at_k", "nth", "elem"))
        fallback = E(self.x.choose("0", "-1", "None")) if et == INT else E(str_lit(""))
        if fallback.text == "None":
            fallback = E("0")
        self._try(
            f"{target} = {seq.name}[{idx.text}]",
            target,
            et,
            "IndexError",
            fallback,
            bind_as=self._exc_name(),
        )
        return True

    def try_key(self) -> bool:
        ctx = self.ctx
        d = ctx.pick(self.rng.choice([DSI, DII]))
        if d is None:
            return False
        key = self.dict_key(d)
        if self.rng.random() < 0.4 and ctx.can_mutate(d.name):
            self.emit("try:")
            with ctx.block(catching=("KeyError",)):
                self.emit(f"{d.name}[{key.text}] += 1")
            self.emit("except KeyError:")
            with ctx.block():
                self.emit(f"{d.name}[{key.text}] = 1")
            return True
        target = ctx.fresh(INT, ("value", "found", "amount", "price", "stored"))
        self._try(
            f"{target} = {d.name}[{key.text}]",
            target,
            INT,
            "KeyError",
            E(self.x.choose("0", "-1")),
            bind_as=self._exc_name(),
        )
        return True

    def try_zero(self) -> bool:
        ctx = self.ctx
        a = self.x.operand(INT, 1)
        b = self.x.operand(INT, 1)
        if a.text.lstrip("-").isdigit():
            a = E(str(self.rng.choice([10, 12, 100, 60])))
        if b.text.lstrip("-").isdigit() or a.text == b.text:
            seq = self.x.vname(self.rng.choice([LINT, STR, LSTR]))
            if not seq:
                return False
            b = E(f"len({seq})")
        op = self.x.choose("//", "%", "/")
        t = FLOAT if op == "/" else INT
        target = ctx.fresh(t, ("ratio", "share", "per_item", "quota", "part", "rate"))
        fallback = E("0.0" if t == FLOAT else "0")
        self._try(
            f"{target} = {a.at(P_MUL)} {op} {b.at(P_MUL + 1)}",
            target,
            t,
            "ZeroDivisionError",
            fallback,
            bind_as=self._exc_name(),
        )
        return True

    def try_value(self) -> bool:
        ctx = self.ctx
        r = self.rng.random()
        if r < 0.55:
            s = self.x.vname(STR)
            if not s:
                return False
            target = ctx.fresh(INT, ("number", "parsed", "amount", "value", "n"))
            self._try(
                f"{target} = int({s})",
                target,
                INT,
                "ValueError",
                E(self.x.choose("0", "-1")),
                bind_as=self._exc_name(),
            )
            return True
        if r < 0.8:
            seq = ctx.pick(self.rng.choice([LINT, LSTR]))
            if seq is None:
                return False
            item = self.elem_expr(elem_of(seq.type))
            target = ctx.fresh(INT, ("where", "pos", "position", "found_at"))
            self._try(
                f"{target} = {seq.name}.index({item.text})",
                target,
                INT,
                "ValueError",
                E("-1"),
                bind_as=self._exc_name(),
            )
            return True
        s = self.x.vname(STR)
        if not s:
            return False
        a = ctx.fresh(STR, ("key", "left", "name", "head"))
        b = ctx.fresh(STR, ("value", "right", "rest", "tail"))
        if a == b:
            return False
        ctx.name_types[a] = STR
        ctx.name_types[b] = STR
        sep = str_lit(self.rng.choice([",", ":", "=", " "]))
        self.emit("try:")
        with ctx.block(catching=("ValueError",)):
            self.emit(f"{a}, {b} = {s}.split({sep})")
        self.emit("except ValueError:")
        with ctx.block():
            self.emit(f"{a}, {b} = {s}, {str_lit('')}")
        ctx.bind(a, STR)
        ctx.bind(b, STR)
        return True

    def try_custom(self, raising: list[Sig], objs: list[tuple[Var, Sig]]) -> bool:
        ctx = self.ctx
        if raising and (not objs or self.rng.random() < 0.6):
            sig = self.rng.choice(raising)
            prefix = ""
        else:
            obj, sig = self.rng.choice(objs)
            prefix = f"{obj.name}."
        assert sig.raises is not None and sig.ret is not None
        sig.calls += 1
        call = f"{prefix}{sig.name}({self.x.call_args(sig, 1)})"
        exc = sig.raises
        if self.rng.random() < 0.15 and exc not in ("ValueError",):
            exc = "Exception"
        target = ctx.fresh(sig.ret)
        fallback = self.x.fallback(sig.ret)
        if sig.ret == INT:
            fallback = E(self.x.choose("0", "-1", "0"))
        self._try(
            f"{target} = {call}",
            target,
            sig.ret,
            exc,
            fallback,
            bind_as=self._exc_name(0.6),
        )
        return True

    # ------------------------------------------------------------------ deliberate failures

    def failing_statement(self) -> None:
        """A statement that raises for most inputs, left uncaught (an error-exit program)."""
        ctx = self.ctx
        raising = [
            s for s in ctx.callables if s.raises and s.ret is not None and s.kind != "generator"
        ]
        options: list[Callable[[], bool]] = []

        def call_raising() -> bool:
            if not raising:
                return False
            sig = self.rng.choice(raising)
            sig.calls += 1
            assert sig.ret is not None
            name = ctx.fresh(sig.ret)
            self.emit(f"{name} = {sig.name}({self.x.call_args(sig, 1)})")
            ctx.bind(name, sig.ret)
            return True

        def parse_int() -> bool:
            s = ctx.pick(STR)
            if s is None:
                return False
            name = ctx.fresh(INT, ("number", "parsed", "amount"))
            self.emit(f"{name} = int({s.name})")
            ctx.bind(name, INT)
            return True

        def index_far() -> bool:
            seq = ctx.pick(self.rng.choice([LINT, LSTR]))
            if seq is None:
                return False
            et = elem_of(seq.type)
            name = ctx.fresh(et, ("picked", "nth", "item"))
            k = self.rng.choice([8, 9, 10, 12, 20])
            self.emit(f"{name} = {seq.name}[{self.x.choose(str(k), f'len({seq.name})')}]")
            ctx.bind(name, et)
            return True

        def missing_key() -> bool:
            d = ctx.pick(DSI)
            if d is None:
                return False
            name = ctx.fresh(INT, ("price", "value", "amount"))
            self.emit(f"{name} = {d.name}[{str_lit(self.rng.choice(WORDS))}]")
            ctx.bind(name, INT)
            return True

        def divide() -> bool:
            seq = ctx.pick(self.rng.choice([LINT, LSTR]))
            if seq is None:
                return False
            name = ctx.fresh(INT, ("share", "per_item", "mean"))
            num = self.x.operand(INT, 1)
            if seq.type == LINT:
                picked = f"[x for x in {seq.name} if x > {self.rng.choice([40, 45, 60])}]"
            else:
                picked = f"[w for w in {seq.name} if len(w) > {self.rng.choice([8, 10])}]"
            self.emit(f"{name} = {num.at(P_MUL)} // len({picked})")
            ctx.bind(name, INT)
            return True

        options = [call_raising, call_raising, parse_int, index_far, missing_key, divide]
        self.rng.shuffle(options)
        for option in options:
            if option():
                ctx.keep.add(ctx.lines[-1])
                return
        msg = str_lit(self.rng.choice(["bad input", "empty", "unexpected value"]))
        self.emit(f"raise ValueError({msg})")
