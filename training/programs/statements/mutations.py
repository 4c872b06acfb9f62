"""In-place mutation of lists, dicts and sets.

Why: mutation is where a value changes without an assignment on the line, the hardest thing
to predict from the source alone. A mutation that shrinks a collection is only written where
no loop runs over it and where the collection is known to be non-empty (or under a guard).
"""

from __future__ import annotations

from ..scope import (
    DII,
    DSI,
    DSL,
    INT,
    LINT,
    LSTR,
    P_ADD,
    P_CMP,
    SINT,
    E,
    elem_of,
)
from .core import BodyCore


class Mutations(BodyCore):
    """Statements that change a list, dict, set or dict of lists in place."""

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
