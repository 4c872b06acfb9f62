"""A random generator of small, valid, terminating Python programs for training.

Why: the model learns to predict execution by reading traces, so it needs many programs that
look like the code people write, not a handful of templates. A program here is built from a
small typed grammar (the ``exprs`` and ``statements`` packages): the generator picks helper
functions (plain, recursive, generators with ``yield``, validators that raise a custom
exception), sometimes a small class or module constants, then an entry function (or
module-level script code) that calls them, statement by statement, tracking the type of every
variable in scope. Generated source is a candidate only: ``validate.py`` runs it under the
project's tracer and rejects it unless it ends the way it was meant to within the line budget.
"""

from __future__ import annotations

import builtins
import random
from dataclasses import dataclass

from .inputs import value_input
from .names import (
    CLASS_NAMES,
    CONSTANT_NAMES,
    EXCEPTION_NAMES,
    METHOD_VERBS,
    NOUNS,
    QUERY_VERBS,
    VERBS,
    WORDS,
)
from .scope import (
    BOOL,
    COLLECTIONS,
    DII,
    DSI,
    FLOAT,
    INT,
    LINT,
    LSTR,
    PAIR,
    SINT,
    STR,
    ClassInfo,
    Ctx,
    E,
    Module,
    Sig,
    Var,
    elem_of,
    lit,
    prune_dead_stores,
    str_lit,
)
from .statements import Body

PARAM_WEIGHTS = {LINT: 5, STR: 4, INT: 3, LSTR: 2.5, DSI: 1.2, DII: 0.5, SINT: 0.5, BOOL: 0.3}
RETURN_WEIGHTS = {
    INT: 6,
    STR: 4,
    LINT: 4,
    BOOL: 2,
    LSTR: 2,
    DSI: 1.5,
    DII: 0.6,
    SINT: 0.6,
    PAIR: 0.8,
    FLOAT: 0.6,
}
PARAM_POOLS: dict[str, tuple[str, ...]] = {
    INT: ("n", "k", "limit", "target", "step", "width", "size", "count", "threshold", "start"),
    STR: ("s", "text", "word", "line", "name", "sentence", "code", "label", "path", "msg"),
    LINT: ("xs", "nums", "values", "items", "scores", "data", "numbers", "prices", "ages"),
    LSTR: ("words", "names", "tokens", "lines", "tags", "items", "parts"),
    DSI: ("counts", "scores", "stock", "prices", "table", "ages", "inventory"),
    DII: ("mapping", "counts", "table", "buckets"),
    SINT: ("seen", "ids", "allowed", "blocked", "members"),
    BOOL: ("strict", "reverse", "verbose", "flag"),
}
_BUILTIN_NAMES = frozenset(dir(builtins))
GENERATOR_VERBS = ("iter", "walk", "generate", "emit", "stream", "each", "scan")


@dataclass
class Generated:
    """A candidate program before validation."""

    source: str
    entry: str | None
    expect_error: bool
    kind: str  # function | script


def _weighted(rng: random.Random, table: dict[str, float]) -> str:
    return rng.choices(list(table), list(table.values()))[0]


class ProgramBuilder:
    """Builds one program: module-level definitions, then an entry function or a script."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.module = Module()

    # ------------------------------------------------------------------ names

    def func_name(self, ret: str | None, first_param: str | None) -> str:
        verbs = VERBS.get(ret or "none", VERBS["none"])
        nouns = NOUNS.get(first_param or INT, NOUNS[INT])
        for _ in range(20):
            verb = self.rng.choice(verbs)
            noun = self.rng.choice(nouns)
            name = verb if self.rng.random() < 0.08 else f"{verb}_{noun}"
            if name not in self.module.names and name not in _BUILTIN_NAMES:
                self.module.names.add(name)
                return name
        for i in range(2, 100):
            name = f"{verb}_{noun}_{i}"
            if name not in self.module.names:
                self.module.names.add(name)
                return name
        raise RuntimeError("out of function names")

    def params(self, n: int, ctx: Ctx, *, types: list[str] | None = None) -> list[tuple[str, str]]:
        out = []
        for i in range(n):
            t = types[i] if types else _weighted(self.rng, PARAM_WEIGHTS)
            name = ctx.fresh(t, PARAM_POOLS[t])
            var = ctx.bind(name, t, kind="param")
            var.shared = ctx.level not in ("entry", "module")
            out.append((name, t))
        return out

    def add_block(self, lines: list[str]) -> None:
        self.module.blocks.append("\n".join(lines))

    def effects(self) -> set[str]:
        names = set(self.module.names)
        for info in self.module.classes:
            names.update(m.name for m in info.methods)
        return names

    def pruned(self, ctx: Ctx, header: str) -> list[str]:
        lines = prune_dead_stores(ctx.lines, header=header, effects=self.effects(), keep=ctx.keep)
        return lines if len(lines) >= 3 else ctx.lines

    # ------------------------------------------------------------------ module pieces

    def add_constant(self) -> None:
        t = self.rng.choice([INT, STR, STR, LINT, LSTR, DSI])
        names = [n for n in CONSTANT_NAMES[t] if n not in self.module.names]
        if not names:
            return
        name = self.rng.choice(names)
        if t == INT:
            value: object = self.rng.choice([3, 5, 10, 20, 100, 2, 4])
        elif t == STR:
            value = {
                "VOWELS": "aeiou",
                "SEPARATOR": self.rng.choice([", ", "-", " | ", "/"]),
                "PREFIX": self.rng.choice(["id_", ">> ", "item-", "#"]),
                "DIGITS": "0123456789",
                "PUNCTUATION": ".,!?;:",
                "MARKER": self.rng.choice(["*", "!", "~"]),
                "ALPHABET": "abcdefghijklmnopqrstuvwxyz",
            }[name]
        elif t == LINT:
            value = [self.rng.randint(1, 9) for _ in range(self.rng.randint(2, 5))]
        elif t == LSTR:
            value = self.rng.sample(WORDS, self.rng.randint(2, 4))
        else:
            value = {w: self.rng.randint(1, 20) for w in self.rng.sample(WORDS, 3)}
        self.module.names.add(name)
        self.module.constants.append(Var(name, t, 0, kind="global"))
        self.module.constant_lines.append(f"{name} = {lit(value)}")

    def exception_class(self) -> str:
        if self.module.exceptions and self.rng.random() < 0.8:
            return self.rng.choice(self.module.exceptions)
        names = [n for n in EXCEPTION_NAMES if n not in self.module.names]
        name = self.rng.choice(names)
        self.module.names.add(name)
        self.module.exceptions.append(name)
        base = self.rng.choice(["Exception", "Exception", "ValueError"])
        self.add_block([f"class {name}({base}):", "    pass"])
        return name

    def finish_function(self, ctx: Ctx, header: str, sig: Sig, *, with_return: bool = True) -> None:
        body = Body(ctx)
        if with_return and ctx.ret is not None:
            ctx.emit(f"return {body.return_value(1).text}")
        self.add_block([header, *self.pruned(ctx, header)])
        self.module.helpers.append(sig)

    def guard_clause(self, body: Body, ctx: Ctx, params: list[tuple[str, str]]) -> None:
        """``if not xs: return ...`` at the top: the rest of the body knows xs is non-empty."""
        seqs = [(n, t) for n, t in params if t in (LINT, LSTR, STR)]
        if seqs and ctx.ret is not None and self.rng.random() < 0.5:
            name, _ = self.rng.choice(seqs)
            ctx.emit(f"if not {name}:")
            with ctx.block():
                ctx.emit(f"return {body.x.gen(ctx.ret, 0).text}")
            ctx.facts[("nonempty", name)] = 0
            return
        ints = [n for n, t in params if t == INT]
        if ints and ctx.ret is not None:
            name = self.rng.choice(ints)
            ctx.emit(f"if {name} {self.rng.choice(['<= 0', '< 0', '< 1'])}:")
            with ctx.block():
                ctx.emit(f"return {body.x.gen(ctx.ret, 0).text}")

    def raise_clause(self, body: Body, ctx: Ctx, params: list[tuple[str, str]]) -> str:
        exc = self.exception_class() if self.rng.random() < 0.75 else "ValueError"
        name, t = self.rng.choice(params)
        if t == INT:
            cond = f"{name} {self.rng.choice(['< 0', '> 10', '== 0', '> 20', '% 7 == 0'])}"
        elif t == STR:
            cond = self.rng.choice(
                [
                    f"not {name}",
                    f"not {name}.isalpha()",
                    f"{name}.isdigit()",
                    f"len({name}) > 6",
                    f"' ' in {name}",
                    f"not {name}.islower()",
                ]
            )
        elif t in (LINT, LSTR, DSI, DII, SINT):
            cond = self.rng.choice([f"not {name}", f"len({name}) > 5", f"len({name}) < 2"])
            if t == LINT:
                cond = self.rng.choice([cond, f"any(x < 0 for x in {name})", f"sum({name}) > 50"])
        else:
            cond = f"not {name}"
        msg = self.rng.choice(
            ["invalid", "bad value", "not allowed", "too many", "empty", "out of range"]
        )
        if t in (INT, STR) and self.rng.random() < 0.6:
            text = f'f"{msg}: {{{name}!r}}"'
        else:
            text = str_lit(msg)
        ctx.emit(f"if {cond}:")
        with ctx.block():
            ctx.emit(f"raise {exc}({text})")
        if t in (LINT, LSTR, STR) and cond == f"not {name}":
            ctx.facts[("nonempty", name)] = 0
        return exc

    # ------------------------------------------------------------------ helpers

    def plain_helper(self, *, raises: bool = False) -> None:
        rng = self.rng
        ret = _weighted(rng, RETURN_WEIGHTS)
        ctx = Ctx(rng, self.module, level="function", ret=ret, budget=rng.randint(2, 6))
        params = self.params(rng.choice([1, 1, 2, 2, 3]), ctx)
        for name, _ in params:
            ctx.vars[name].shared = True
        sig = Sig("", params, ret)
        body = Body(ctx)
        if raises:
            sig.raises = self.raise_clause(body, ctx, params)
            sig.kind = "raises"
        elif rng.random() < 0.3:
            self.guard_clause(body, ctx, params)
        body.block(ctx.budget)
        sig.name = self.func_name(ret, params[0][1])
        header = f"def {sig.name}({', '.join(n for n, _ in params)}):"
        self.finish_function(ctx, header, sig)

    def generator_helper(self) -> None:
        rng = self.rng
        elem = rng.choice([INT, INT, STR])
        ctx = Ctx(rng, self.module, level="generator", budget=rng.randint(2, 5))
        ctx.yield_type = elem
        main_t = rng.choice([LINT, LINT, LSTR, STR]) if elem == INT else rng.choice([LSTR, STR])
        types = [main_t] + ([INT] if rng.random() < 0.35 else [])
        params = self.params(len(types), ctx, types=types)
        for name, _ in params:
            ctx.vars[name].shared = True
        body = Body(ctx)
        if rng.random() < 0.3:
            body.declare()
        src = params[0][0]
        loop_t = elem_of(main_t)
        kind = "char" if main_t == STR else ("int" if loop_t == INT else "str")
        if main_t == STR and rng.random() < 0.5:
            v = ctx.loop_name("str", "words")
            ctx.emit(f"for {v} in {src}.split():")
            kind = "str"
        elif rng.random() < 0.25:
            i = ctx.loop_name("index")
            v = ctx.loop_name(kind, src)
            ctx.emit(f"for {i}, {v} in enumerate({src}):")
            ctx.bind(i, INT, kind="loop")
        else:
            v = ctx.loop_name(kind, src)
            ctx.emit(f"for {v} in {src}:")
        with ctx.block(loop="for", freeze=(src,)):
            ctx.bind(v, loop_t, kind="loop", char=kind == "char")
            ctx.focus = v
            body.loop_body(rng.choice([0, 1, 1, 2]))
            if ctx.yields == 0:
                body.yield_statement()
            body.loop_body(rng.choice([0, 0, 1]))
        if ctx.vars.get(params[0][0]) and "i" in ctx.vars and ctx.vars["i"].kind == "loop":
            del ctx.vars["i"]
        noun = rng.choice(NOUNS.get(main_t, ("items",)))
        name = f"{rng.choice(GENERATOR_VERBS)}_{noun}"
        if name in self.module.names:
            name = self.func_name(None, main_t)
        self.module.names.add(name)
        sig = Sig(name, params, None, kind="generator", elem=elem)
        header = f"def {name}({', '.join(n for n, _ in params)}):"
        self.finish_function(ctx, header, sig, with_return=False)

    def recursive_helper(self) -> None:
        rng = self.rng
        kind = rng.choices(
            [
                "int_down",
                "fib",
                "list_head",
                "str_head",
                "index_acc",
                "halves",
                "merge_sort",
                "pal",
            ],
            [4, 1, 4, 2, 2, 2, 1, 1],
        )[0]
        if kind == "int_down":
            self._rec_int_down()
        elif kind == "fib":
            self._rec_fib()
        elif kind == "list_head":
            self._rec_list_head()
        elif kind == "str_head":
            self._rec_str_head()
        elif kind == "index_acc":
            self._rec_index_acc()
        elif kind == "halves":
            self._rec_halves()
        elif kind == "merge_sort":
            self._rec_merge_sort()
        else:
            self._rec_palindrome()

    def _rec_ctx(self, ret: str, budget: int = 2) -> tuple[Ctx, Body]:
        ctx = Ctx(self.rng, self.module, level="function", ret=ret, budget=budget)
        return ctx, Body(ctx)

    def _rec_name(self, ret: str, first: str) -> str:
        return self.func_name(ret, first)

    def _combine(self, ctx: Ctx, body: Body, rest: str, ret: str) -> str:
        e = body.x.focused(ret, rest, 1)
        return e.text

    def _rec_int_down(self) -> None:
        rng = self.rng
        ret = rng.choice([INT, INT, INT, LINT, STR])
        ctx, body = self._rec_ctx(ret, rng.choice([0, 1, 1, 2]))
        ((n, _),) = self.params(1, ctx, types=[INT])
        name = self._rec_name(ret, INT)
        step = rng.choice(["1", "1", "1", "2"])
        base = rng.choice(["<= 0", "<= 1", "< 1", "== 0"]) if step == "1" else "<= 1"
        if base == "== 0":
            base = "<= 0"
        ctx.emit(f"if {n} {base}:")
        with ctx.block():
            ctx.emit(f"return {body.x.gen(ret, 0).text}")
        ctx.vars[n].kind = "loop"  # read-only from here on
        body.block(ctx.budget)
        rest = ctx.fresh(ret, ("rest", "sub", "smaller", "prev", "inner"))
        ctx.emit(f"{rest} = {name}({n} - {step})")
        ctx.bind(rest, ret)
        ctx.emit(f"return {self._combine(ctx, body, rest, ret)}")
        sig = Sig(name, [(n, INT)], ret, kind="recursive", bound={0: "min({}, 7)"})
        self.add_block([f"def {name}({n}):", *ctx.lines])
        self.module.helpers.append(sig)

    def _rec_fib(self) -> None:
        rng = self.rng
        ctx, _body = self._rec_ctx(INT)
        ((n, _),) = self.params(1, ctx, types=[INT])
        name = self.func_name(INT, INT)
        ctx.emit(f"if {n} < 2:")
        with ctx.block():
            ctx.emit(f"return {rng.choice([n, '1', n, 'max(' + n + ', 0)'])}")
        op = rng.choice(["+", "+", "*"]) if rng.random() < 0.3 else "+"
        ctx.emit(f"return {name}({n} - 1) {op} {name}({n} - 2)")
        sig = Sig(name, [(n, INT)], INT, kind="recursive", bound={0: "min({}, 6)"})
        self.add_block([f"def {name}({n}):", *ctx.lines])
        self.module.helpers.append(sig)

    def _rec_list_head(self) -> None:
        rng = self.rng
        t = rng.choice([LINT, LINT, LSTR])
        ret = rng.choice([INT, INT, t, BOOL]) if t == LINT else rng.choice([INT, STR, t])
        ctx, body = self._rec_ctx(ret, rng.choice([0, 1, 1]))
        ((xs, _),) = self.params(1, ctx, types=[t])
        ctx.vars[xs].shared = True
        name = self._rec_name(ret, t)
        if rng.random() < 0.5:
            ctx.emit(f"if not {xs}:")
            with ctx.block():
                base = body.x.fallback(ret).text if ret != BOOL else rng.choice(["True", "False"])
                ctx.emit(f"return {base}")
        else:
            ctx.emit(f"if len({xs}) <= 1:")
            with ctx.block():
                base = body.x.gen(ret, 1)
                if ret in COLLECTIONS and base.text == xs:
                    base = E(f"list({xs})")
                ctx.emit(f"return {base.text}")
        ctx.vars[xs].kind = "loop"
        ctx.facts[("nonempty", xs)] = 0
        et = elem_of(t)
        head = ctx.fresh(et, ("head", "first", "top"))
        ctx.emit(f"{head} = {xs}[0]")
        ctx.bind(head, et)
        ctx.focus = head
        body.block(ctx.budget)
        rest = ctx.fresh(ret, ("rest", "tail_result", "others", "sub"))
        ctx.emit(f"{rest} = {name}({xs}[1:])")
        ctx.bind(rest, ret)
        ctx.focus = None
        ctx.emit(f"return {self._combine(ctx, body, rest, ret)}")
        sig = Sig(name, [(xs, t)], ret, kind="recursive", bound={0: "{}[:8]"})
        self.add_block([f"def {name}({xs}):", *ctx.lines])
        self.module.helpers.append(sig)

    def _rec_str_head(self) -> None:
        rng = self.rng
        ret = rng.choice([STR, STR, INT])
        ctx, body = self._rec_ctx(ret, rng.choice([0, 1]))
        ((s, _),) = self.params(1, ctx, types=[STR])
        ctx.vars[s].shared = True
        name = self._rec_name(ret, STR)
        ctx.emit(f"if not {s}:")
        with ctx.block():
            ctx.emit(f"return {body.x.fallback(ret).text if ret == STR else '0'}")
        ctx.vars[s].kind = "loop"
        ctx.facts[("nonempty", s)] = 0
        head = ctx.fresh(STR, ("head", "first", "ch"))
        ctx.emit(f"{head} = {s}[0]")
        ctx.bind(head, STR, char=True)
        ctx.focus = head
        body.block(ctx.budget)
        rest = ctx.fresh(ret, ("rest", "tail", "others"))
        ctx.emit(f"{rest} = {name}({s}[1:])")
        ctx.bind(rest, ret)
        ctx.focus = None
        ctx.emit(f"return {self._combine(ctx, body, rest, ret)}")
        sig = Sig(name, [(s, STR)], ret, kind="recursive", bound={0: "{}[:8]"})
        self.add_block([f"def {name}({s}):", *ctx.lines])
        self.module.helpers.append(sig)

    def _rec_index_acc(self) -> None:
        rng = self.rng
        t = rng.choice([LINT, LINT, LSTR])
        acc_t = INT if t == LINT else rng.choice([INT, STR])
        ctx, body = self._rec_ctx(acc_t, rng.choice([0, 0, 1]))
        ((xs, _),) = self.params(1, ctx, types=[t])
        ctx.vars[xs].shared = True
        i = ctx.fresh(INT, ("i", "index", "pos", "start"))
        acc = ctx.fresh(acc_t, ("acc", "total", "result", "so_far"))
        name = self._rec_name(acc_t, t)
        init = "0" if acc_t == INT else '""'
        ctx.bind(i, INT, kind="loop")
        ctx.emit(f"if {i} >= len({xs}):")
        with ctx.block():
            ctx.emit(f"return {acc}")
        ctx.bind(acc, acc_t, kind="loop")
        ctx.facts[("index", i, xs)] = 0
        ctx.vars[xs].kind = "loop"
        body.block(ctx.budget)
        if acc_t == INT and t == LINT:
            step = body.x.focused(INT, f"{xs}[{i}]", 1).text if rng.random() < 0.5 else f"{xs}[{i}]"
            new_acc = (
                f"{acc} + {step}"
                if " " not in step or step.startswith("(")
                else f"{acc} + ({step})"
            )
        elif acc_t == INT:
            new_acc = f"{acc} + len({xs}[{i}])"
        else:
            new_acc = rng.choice([f"{acc} + {xs}[{i}][:1]", f"{acc} + {xs}[{i}][0:2].upper()"])
        ctx.emit(f"return {name}({xs}, {i} + 1, {new_acc})")
        sig = Sig(name, [(xs, t)], acc_t, kind="recursive", bound={0: "{}[:8]"})
        self.add_block([f"def {name}({xs}, {i}=0, {acc}={init}):", *ctx.lines])
        self.module.helpers.append(sig)

    def _rec_halves(self) -> None:
        rng = self.rng
        ctx, _body = self._rec_ctx(INT, 0)
        ((xs, _),) = self.params(1, ctx, types=[LINT])
        ctx.vars[xs].shared = True
        name = self.func_name(INT, LINT)
        base = rng.choice(
            [f"{xs}[0] if {xs} else 0", f"sum({xs})", f"len({xs})", f"max({xs}, default=0)"]
        )
        ctx.emit(f"if len({xs}) <= 1:")
        with ctx.block():
            ctx.emit(f"return {base}")
        mid = ctx.fresh(INT, ("mid", "half", "middle"))
        left = ctx.fresh(INT, ("left", "lo_part", "first_half"))
        right = ctx.fresh(INT, ("right", "hi_part", "second_half"))
        ctx.emit(f"{mid} = len({xs}) // 2")
        ctx.emit(f"{left} = {name}({xs}[:{mid}])")
        ctx.emit(f"{right} = {name}({xs}[{mid}:])")
        combine = rng.choice(
            [f"{left} + {right}", f"max({left}, {right})", f"min({left}, {right})"]
        )
        ctx.emit(f"return {combine}")
        sig = Sig(name, [(xs, LINT)], INT, kind="recursive")
        self.add_block([f"def {name}({xs}):", *ctx.lines])
        self.module.helpers.append(sig)

    def _rec_merge_sort(self) -> None:
        rng = self.rng
        ctx, _ = self._rec_ctx(LINT, 0)
        ((xs, _),) = self.params(1, ctx, types=[LINT])
        name = self.rng.choice(["merge_sort", "sort_values", "sort_items", "msort"])
        if name in self.module.names:
            name = self.func_name(LINT, LINT)
        self.module.names.add(name)
        le = rng.choice(["<=", "<"]) if rng.random() < 0.2 else "<="
        lines = [
            f"def {name}({xs}):",
            f"    if len({xs}) <= 1:",
            f"        return list({xs})",
            f"    mid = len({xs}) // 2",
            f"    left = {name}({xs}[:mid])",
            f"    right = {name}({xs}[mid:])",
            "    merged = []",
            "    i = j = 0",
            "    while i < len(left) and j < len(right):",
            f"        if left[i] {le} right[j]:",
            "            merged.append(left[i])",
            "            i += 1",
            "        else:",
            "            merged.append(right[j])",
            "            j += 1",
            "    merged.extend(left[i:])",
            "    merged.extend(right[j:])",
            "    return merged",
        ]
        sig = Sig(name, [(xs, LINT)], LINT, kind="recursive", bound={0: "{}[:6]"})
        self.add_block(lines)
        self.module.helpers.append(sig)

    def _rec_palindrome(self) -> None:
        rng = self.rng
        ctx, _ = self._rec_ctx(BOOL, 0)
        ((s, _),) = self.params(1, ctx, types=[STR])
        name = rng.choice(["is_palindrome", "mirrored", "reads_same", "check_mirror"])
        if name in self.module.names:
            name = self.func_name(BOOL, STR)
        self.module.names.add(name)
        lines = [
            f"def {name}({s}):",
            f"    if len({s}) < 2:",
            "        return True",
            f"    if {s}[0] != {s}[-1]:",
            "        return False",
            f"    return {name}({s}[1:-1])",
        ]
        if rng.random() < 0.4:
            lines.insert(1, f"    {s} = {s}.lower()")
        sig = Sig(name, [(s, STR)], BOOL, kind="recursive")
        self.add_block(lines)
        self.module.helpers.append(sig)

    # ------------------------------------------------------------------ classes

    def add_class(self) -> None:
        rng = self.rng
        names = [n for n in CLASS_NAMES if n not in self.module.names]
        cname = rng.choice(names)
        self.module.names.add(cname)
        lower = cname.lower()
        var_names = (lower, f"my_{lower}", f"{lower}_a", "obj")
        init_choices = [
            (INT, ("start", "limit", "capacity", "initial", "size", "budget")),
            (STR, ("name", "owner", "label", "title")),
            (LINT, ("items", "values", "scores", "entries")),
        ]
        picked = rng.sample(init_choices, rng.choice([1, 1, 2]))
        init_params: list[tuple[str, str]] = []
        attrs: dict[str, str] = {}
        init_lines = []
        for t, pool in picked:
            p = rng.choice(pool)
            init_params.append((p, t))
            attrs[p] = t
            value = f"list({p})" if t in COLLECTIONS else p
            init_lines.append(f"        self.{p} = {value}")
        extras = [
            ("count", INT, "0"),
            ("total", INT, "0"),
            ("history", LINT, "[]"),
            ("log", LSTR, "[]"),
            ("tally", DSI, "{}"),
            ("seen", SINT, "set()"),
            ("last", INT, "-1"),
            ("status", STR, '"new"'),
        ]
        for a, t, v in rng.sample(extras, rng.choice([1, 2, 2, 3])):
            if a in attrs:
                continue
            attrs[a] = t
            init_lines.append(f"        self.{a} = {v}")
        info = ClassInfo(cname, init_params, attrs, [], var_names)
        lines = [f"class {cname}:"]
        lines.append(f"    def __init__(self, {', '.join(p for p, _ in init_params)}):")
        lines.extend(init_lines)
        used: set[str] = set()
        # A mutator, a query, then maybe a method calling the mutator, or one that raises.
        plan = ["mutator", "query"]
        if rng.random() < 0.6:
            plan.append("caller")
        if rng.random() < 0.3:
            plan.append(rng.choice(["mutator", "query"]))
        if rng.random() < 0.25:
            plan.append("raiser")
        for kind in plan:
            lines.append("")
            lines.extend(self.method(info, kind, used))
        self.module.classes.append(info)
        self.add_block(lines)

    def method_ctx(self, info: ClassInfo, ret: str | None, budget: int) -> tuple[Ctx, Body]:
        ctx = Ctx(self.rng, self.module, level="method", ret=ret, indent=2, budget=budget)
        ctx.callables = list(info.methods)
        ctx.self_class = info
        for a, t in info.attrs.items():
            ctx.bind(f"self.{a}", t, kind="attr")
        return ctx, Body(ctx)

    def method(self, info: ClassInfo, kind: str, used: set[str]) -> list[str]:
        rng = self.rng

        def pick_name(pool: tuple[str, ...]) -> str:
            options = [n for n in pool if n not in used and n not in info.attrs]
            name = rng.choice(options) if options else f"{rng.choice(pool)}_{len(used)}"
            used.add(name)
            return name

        if kind == "mutator":
            name = pick_name(METHOD_VERBS)
            t = rng.choice([INT, INT, STR])
            ret = rng.choice([None, None, INT])
            ctx, body = self.method_ctx(info, ret, rng.randint(1, 3))
            params = self.params(1, ctx, types=[t])
            body.block(ctx.budget)
            if not any(
                "self." in line and ("=" in line or "append" in line or ".add(" in line)
                for line in ctx.lines
            ):
                attr = next((a for a, at in info.attrs.items() if at == INT), None)
                if attr:
                    ctx.emit(f"self.{attr} += 1")
        elif kind == "query":
            name = pick_name(QUERY_VERBS)
            ret = rng.choice([INT, INT, STR, BOOL, LINT])
            ctx, body = self.method_ctx(info, ret, rng.randint(0, 2))
            params = []
            body.block(ctx.budget)
        elif kind == "caller":
            mutators = [m for m in info.methods if m.params]
            if not mutators:
                return self.method(info, "query", used)
            target = rng.choice(mutators)
            name = pick_name(tuple(f"{target.name}_{s}" for s in ("all", "many", "each")))
            ret = rng.choice([None, INT, INT])
            ctx, body = self.method_ctx(info, ret, rng.randint(0, 2))
            pt = LINT if target.params[0][1] == INT else LSTR
            params = self.params(1, ctx, types=[pt])
            src = params[0][0]
            v = ctx.loop_name("int" if pt == LINT else "str", src)
            ctx.emit(f"for {v} in {src}:")
            with ctx.block(loop="for", freeze=(src,)):
                ctx.bind(v, elem_of(pt), kind="loop")
                ctx.emit(f"self.{target.name}({v})")
                target.calls += 1
            body.block(ctx.budget)
        else:  # raiser
            exc = self.exception_class()
            ints = [a for a, t in info.attrs.items() if t == INT]
            if not ints:
                return self.method(info, "query", used)
            attr = rng.choice(ints)
            name = pick_name(("withdraw", "take", "consume", "spend", "remove_amount", "use"))
            ret = INT
            ctx, body = self.method_ctx(info, ret, rng.randint(0, 1))
            params = self.params(1, ctx, types=[INT])
            p = params[0][0]
            ctx.emit(f"if {p} > self.{attr}:")
            with ctx.block():
                ctx.emit(f'raise {exc}(f"need {{{p}}}, have {{self.{attr}}}")')
            ctx.emit(f"self.{attr} -= {p}")
            body.block(ctx.budget)
            sig = Sig(name, params, ret, kind="method", raises=exc)
            ctx.emit(f"return {body.return_value(1).text}")
            info.methods.append(sig)
            header = f"    def {name}(self{''.join(', ' + n for n, _ in params)}):"
            return [header, *self.pruned(ctx, header)]
        if ret is not None:
            ctx.emit(f"return {body.return_value(1).text}")
        sig = Sig(name, params, ret, kind="method")
        info.methods.append(sig)
        header = f"    def {name}(self{''.join(', ' + n for n, _ in params)}):"
        return [header, *self.pruned(ctx, header)]

    # ------------------------------------------------------------------ programs

    def definitions(self, *, n_helpers: int) -> None:
        rng = self.rng
        if rng.random() < 0.22:
            self.add_constant()
            if rng.random() < 0.3:
                self.add_constant()
        if rng.random() < 0.28:
            self.add_class()
        for _ in range(n_helpers):
            kind = rng.choices(["plain", "recursive", "generator", "raises"], [5, 1.6, 1.4, 1.1])[0]
            if kind == "plain":
                self.plain_helper()
            elif kind == "recursive":
                self.recursive_helper()
            elif kind == "generator":
                self.generator_helper()
            else:
                self.plain_helper(raises=True)

    def call_leftovers(self, body: Body) -> None:
        """Call every helper (and method) the body did not call yet."""
        ctx = body.ctx
        for sig in list(ctx.callables):
            if sig.calls:
                continue
            if sig.raises:
                body.try_custom([sig], [])
            else:
                body.call_sig(sig)
        for info in self.module.classes:
            mine = [v for v in ctx.vars.values() if v.type == f"obj:{info.name}"]
            if not mine:
                mine = [self.new_object(body, info)]
            obj = mine[0]
            for m in info.methods:
                if m.calls:
                    continue
                m.calls += 1
                call = f"{obj.name}.{m.name}({body.x.call_args(m, 1)})"
                if m.raises:
                    target = ctx.fresh(INT)
                    body._try(f"{target} = {call}", target, INT, m.raises, E("0"))
                elif m.ret is None:
                    ctx.emit(call)
                else:
                    name = ctx.fresh(m.ret)
                    ctx.emit(f"{name} = {call}")
                    ctx.bind(name, m.ret)

    def new_object(self, body: Body, info: ClassInfo) -> Var:
        ctx = body.ctx
        name = ctx.fresh(f"obj:{info.name}", info.var_names)
        args = [body.no_alias(t, body.x.operand(t, 1)).text for _, t in info.init_params]
        ctx.emit(f"{name} = {info.name}({', '.join(args)})")
        return ctx.bind(name, f"obj:{info.name}")

    def source(self) -> str:
        blocks = list(self.module.blocks)
        if self.module.constant_lines:
            blocks.insert(0, "\n".join(self.module.constant_lines))
        return "\n\n\n".join(blocks) + "\n"

    def function_program(self, expect_error: bool) -> Generated:
        rng = self.rng
        self.definitions(n_helpers=rng.choices([0, 1, 2, 3, 4], [2, 4, 4, 2.5, 0.8])[0])
        ret = _weighted(rng, RETURN_WEIGHTS)
        ctx = Ctx(rng, self.module, level="entry", ret=ret, budget=rng.randint(4, 11))
        ctx.prints_left = rng.choice([0, 0, 0, 1, 1, 2])
        params = self.params(rng.choices([1, 2, 3], [5, 4, 1.5])[0], ctx)
        body = Body(ctx)
        if rng.random() < 0.2:
            self.guard_clause(body, ctx, params)
        first = ctx.budget // 2 if expect_error else ctx.budget
        body.block(first)
        if expect_error:
            body.failing_statement()
            body.block(ctx.budget)
        self.call_leftovers(body)
        ctx.emit(f"return {body.return_value(1).text}")
        name = self.func_name(ret, params[0][1])
        header = f"def {name}({', '.join(n for n, _ in params)}):"
        self.add_block([header, *self.pruned(ctx, header)])
        args = ", ".join(lit(value_input(rng, t)) for _, t in params)
        return Generated(self.source(), f"{name}({args})", expect_error, "function")

    def script(self, expect_error: bool) -> Generated:
        rng = self.rng
        self.definitions(n_helpers=rng.choices([0, 1, 2, 3], [3, 4, 3, 1])[0])
        guarded = rng.random() < 0.2
        indent = 1 if guarded else 0
        ctx = Ctx(rng, self.module, level="module", indent=indent, budget=rng.randint(4, 10))
        ctx.prints_left = rng.choice([2, 3, 3, 4])
        body = Body(ctx)
        for _ in range(rng.choice([1, 2, 2, 3])):
            t = _weighted(rng, PARAM_WEIGHTS)
            name = ctx.fresh(t, PARAM_POOLS[t] if rng.random() < 0.5 else None)
            ctx.emit(f"{name} = {lit(value_input(rng, t))}")
            ctx.bind(name, t)
        first = ctx.budget // 2 if expect_error else ctx.budget
        body.block(first)
        if expect_error:
            body.failing_statement()
            body.block(ctx.budget)
        self.call_leftovers(body)
        if ctx.prints_left > 0 or not any("print(" in line for line in ctx.lines):
            ctx.prints_left = max(ctx.prints_left, 1)
            own = [v for v in ctx.vars.values() if v.kind == "local" and v.uses <= 1]
            if own:
                ctx.emit(f"print({rng.choice(own).name})")
            else:
                body.print_statement()
        lines = self.pruned(ctx, "")
        if guarded:
            lines = ['if __name__ == "__main__":', *lines]
        self.add_block(lines)
        return Generated(self.source(), None, expect_error, "script")


def generate_candidate(rng: random.Random, kind: str, expect_error: bool) -> Generated:
    """One unvalidated program of ``kind`` ("function" or "script")."""
    builder = ProgramBuilder(rng)
    if kind == "script":
        return builder.script(expect_error)
    return builder.function_program(expect_error)
