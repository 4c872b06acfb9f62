"""try/except around operations that really fail, and deliberate uncaught failures.

Why: the model must learn where an exception jumps to. Each try block guards an operation
that can raise for some inputs (an index, a key, a division, ``int()``, a helper that raises
a custom exception); ``failing_statement`` writes the statement that ends an error-exit
program with an uncaught exception.
"""

from __future__ import annotations

from collections.abc import Callable

from ..names import WORDS
from ..scope import (
    DII,
    DSI,
    FLOAT,
    INT,
    LINT,
    LSTR,
    P_MUL,
    STR,
    E,
    Sig,
    Var,
    elem_of,
    is_obj,
    str_lit,
)
from .core import BodyCore


class Exceptions(BodyCore):
    """try/except statements and the uncaught failure of an error-exit program."""

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
