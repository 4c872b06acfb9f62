"""if/elif/else, conditional assignment, break/continue and returns.

Why: branches are where a debugger's next line depends on the values; a condition here can
carry facts into its branch (``if 0 <= i < len(xs):`` lets the body index ``xs[i]`` safely).
"""

from __future__ import annotations

from ..scope import (
    BOOL,
    COLLECTIONS,
    DII,
    DSI,
    INT,
    LINT,
    LSTR,
    P_CMP,
    STR,
    E,
)
from .core import COPIERS, BodyCore


class Branches(BodyCore):
    """Compound statements that branch, and the statements that leave a block early."""

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
