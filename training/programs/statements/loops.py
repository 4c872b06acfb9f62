"""for and while loops that terminate by construction.

Why: ``for`` runs over a value that does not change while it runs (the collection is frozen
for the loop's body); ``while`` runs on a counter that moves toward a small bound, on a stack
that only shrinks, or on a classic shape (digits, gcd, binary search, two pointers).
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
    STR,
    E,
    elem_of,
    str_lit,
)
from .core import BodyCore


class Loops(BodyCore):
    """``for`` over ranges, collections, strings, dicts, ``enumerate``, ``zip``; ``while``."""

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
