"""Common loop patterns written whole: count, filter, running best, total, dedupe.

Why: real code repeats a few loop shapes far more often than random statements would; each
idiom writes its accumulator, the loop and the update that makes the loop mean something.
"""

from __future__ import annotations

from collections.abc import Callable

from ..scope import (
    BOOL,
    DII,
    DSI,
    INT,
    LINT,
    LSTR,
    P_CMP,
    SINT,
    STR,
    elem_of,
    str_lit,
)
from .core import BodyCore


class Idioms(BodyCore):
    """Whole loop idioms at the top level of a body (never inside another loop)."""

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
