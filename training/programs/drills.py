"""Builtin drills: small functions that combine methods of the core types and the builtins.

Why: the model learned the project's generator, not Python; it does not know what
``str.count``, ``list.index``, ``dict.get``, slicing or tuple unpacking do. A drill is a
function of 3 to 15 lines that uses them inside loops and branches, called with realistic
arguments (words, sentences, mixed case, digits, punctuation, non-ASCII, empty and
one-element values), so each trace shows what the calls give on ordinary input.

Drills come in *families*: a family is one shape of function (a chain of calls on one value,
a loop over a list that collects results, a sort with a key, an f-string report...), and each
draw picks its methods, argument values, variable names and control flow at random. Two
generic families per core type (``str.steps`` and ``str.each`` ...) draw their calls from the
method catalogue (:mod:`.drill_catalog`), which covers every public method of the type; the
other families drill the builtins and syntax by hand-written shapes.

Whole families are held out (never trained on): a family belongs to the held-out side when
the hash of its origin ``drill:NAME`` falls in the held-out share of :mod:`.split`, the same
rule that holds out real functions. Every program is validated by tracing
(:func:`.validate.check_program`): it must end normally (or with the uncaught exception its
family means) within the line-event bounds. Everything is deterministic in ``(seed, count)``.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from . import drill_values as values
from . import plain_names
from .base import TrainingProgram
from .drill_catalog import ELEMENTS, OWNERS, fill, ops_of, receiver
from .split import Side, on_side
from .validate import check_program

DRILL_ATTEMPTS = 30  # candidates of one family before another family is drawn
MAX_FAMILY_DRAWS = 50
MIN_LINES = 3  # line events: a drill of three statements is still worth a trace


@dataclass(frozen=True)
class Drill:
    source: str
    entry: str


@dataclass(frozen=True)
class Family:
    """One shape of drill; ``build`` draws a program of it."""

    name: str
    build: Callable[[random.Random], Drill]
    expect_error: bool = False

    @property
    def origin(self) -> str:
        return f"drill:{self.name}"


class Names:
    """Distinct variable names drawn from role pools, so drills do not all say ``x``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def pick(self, *pool: str) -> str:
        free = [name for name in pool if name not in self.used]
        name = self.rng.choice(free) if free else f"{pool[0]}{len(self.used)}"
        self.used.add(name)
        return name


PARAMS = {
    "str": ("text", "s", "line", "sentence", "word", "name", "raw", "message", "title"),
    "bytes": ("data", "payload", "raw", "chunk", "blob", "packet"),
    "list": ("items", "values", "words", "names", "parts", "queue", "stack", "seq"),
    "dict": ("counts", "stock", "scores", "ages", "table", "prices", "inventory"),
    "set": ("ids", "seen", "tags", "members", "numbers", "group"),
    "tuple": ("point", "record", "row", "pair", "fields", "entry"),
    "int": ("n", "number", "count", "value", "code", "flags", "total"),
    "float": ("x", "amount", "ratio", "price", "temperature", "weight"),
}
RESULTS = {
    "str": ("cleaned", "result", "label", "out", "fixed", "formatted", "head"),
    "bytes": ("encoded", "buf", "body", "packed", "out"),
    "int": ("count", "pos", "idx", "size", "k", "found", "width"),
    "float": ("y", "scaled", "rounded", "part"),
    "bool": ("ok", "flag", "is_match", "has_it", "valid"),
    "list": ("pieces", "tokens", "chunks", "fields", "lines", "keys"),
    "tuple": ("parts", "pieces", "triple", "halves"),
    "dict": ("mapping", "lookup", "index", "copy"),
    "set": ("common", "rest", "merged", "only"),
    "any": ("got", "item", "last", "first", "popped"),
}
FUNCTIONS = ("process", "clean", "transform", "check", "summarize", "normalize", "handle",
             "describe", "analyze", "convert", "prepare", "inspect", "tidy", "update")  # fmt: skip


def _define(name: str, params: list[str], body: list[str]) -> str:
    lines = [f"def {name}({', '.join(params)}):", *("    " + line for line in body)]
    return "\n".join(lines) + "\n"


def _statement(expr: str, indent: str = "") -> list[str]:
    return [indent + line for line in expr.split("\n")]


def _condition(rng: random.Random, owner: str, var: str) -> str:
    """A test on a value of ``owner`` as people write it."""
    if owner in ("int", "float"):
        return rng.choice((f"{var} > 0", f"{var} % 2 == 0", f"{var} < 10", f"{var} != 0"))
    return rng.choice((var, f"not {var}", f"len({var}) > {rng.randint(1, 4)}", f"len({var}) < 3"))


# --- generic families over the method catalogue ------------------------------------------


def _steps(owner: str) -> Callable[[random.Random], Drill]:
    """A chain of 2 to 4 method calls on one value, some under a branch."""

    def build(rng: random.Random) -> Drill:
        names = Names(rng)
        element = rng.choice(ELEMENTS.get(owner, ("str",)))
        param = names.pick(*PARAMS[owner])
        body: list[str] = []
        cur = param
        if owner in ("list", "dict", "set") and rng.random() < 0.6:
            cur = names.pick("result", "work", "copy_", "acc", "current")
            body.append(f"{cur} = {rng.choice((f'{param}.copy()', f'{owner}({param})'))}")
        outputs: list[str] = []
        for _ in range(rng.randint(2, 4)):
            op = rng.choice(ops_of(owner))
            expr = fill(op, rng, cur, element)
            if op.result == "none":
                if rng.random() < 0.3:
                    body.append(f"if {_condition(rng, owner, cur)}:")
                    body.extend(_statement(expr, "    "))
                else:
                    body.extend(_statement(expr))
            elif op.result == owner and rng.random() < 0.6:
                new = cur if rng.random() < 0.4 else names.pick(*RESULTS.get(owner, ("out",)))
                body.append(f"{new} = {expr}")
                cur = new
            elif op.result == "bool" and rng.random() < 0.6:
                follow = rng.choice([o for o in ops_of(owner) if o.result == owner] or [op])
                out = names.pick(*RESULTS[op.owner if follow.result == owner else "any"])
                body.append(f"if {expr}:")
                body.append(f"    {out} = {fill(follow, rng, cur, element)}")
                body.append("else:")
                body.append(f"    {out} = {cur}")
                outputs.append(out)
            else:
                out = names.pick(*RESULTS.get(op.result, RESULTS["any"]))
                body.append(f"{out} = {expr}")
                outputs.append(out)
        returned = [*outputs, cur] if cur not in outputs else outputs
        body.append(f"return {', '.join(returned[-3:])}")
        name = names.pick(*FUNCTIONS)
        value = receiver(rng, owner, element)
        return Drill(_define(name, [param], body), f"{name}({values.lit(value)})")

    return build


def _each(owner: str) -> Callable[[random.Random], Drill]:
    """A loop over a list of values: one method call per item, results collected."""

    def build(rng: random.Random) -> Drill:
        names = Names(rng)
        element = rng.choice(ELEMENTS.get(owner, ("str",)))
        param = names.pick("items", "values", "batch", "rows", "inputs", "entries")
        item = names.pick(*PARAMS[owner])
        op = rng.choice(ops_of(owner))
        expr = fill(op, rng, item, element)
        body: list[str] = []
        loop = f"for {item} in {param}:"
        if rng.random() < 0.3:
            index = names.pick("i", "pos", "n", "k")
            loop = f"for {index}, {item} in enumerate({param}):"
        if op.result == "none":
            out = names.pick("sizes", "results", "changed", "after")
            body += [f"{out} = []", loop, *_statement(expr, "    "),
                     f"    {out}.append({rng.choice((item, f'len({item})'))})"]  # fmt: skip
        elif op.result in ("int", "float", "bool") and rng.random() < 0.5:
            out = names.pick("total", "hits", "score", "tally")
            body += [f"{out} = 0", loop, f"    {out} += {expr}"]
        elif owner in ("str", "bytes", "int", "float", "tuple") and rng.random() < 0.4:
            out = names.pick("table", "by_item", "mapping", "seen")
            result = names.pick(*RESULTS.get(op.result, RESULTS["any"]))
            body += [f"{out} = {{}}", loop, f"    {result} = {expr}"]
            if rng.random() < 0.5:
                kind = op.result if op.result in OWNERS else "str"
                test = result if op.result == "bool" else _condition(rng, kind, result)
                body += [f"    if {test}:", f"        {out}[{item}] = {result}"]
            else:
                body.append(f"    {out}[{item}] = {result}")
        else:
            out = names.pick("results", "out", "collected", "acc")
            result = names.pick(*RESULTS.get(op.result, RESULTS["any"]))
            body += [f"{out} = []", loop, f"    {result} = {expr}"]
            if rng.random() < 0.4:
                body += [f"    if {result}:", f"        {out}.append({result})"]
            else:
                body.append(f"    {out}.append({result})")
        body.append(f"return {out}")
        name = names.pick(*FUNCTIONS)
        count = rng.choice((0, 1, 2, 2, 3, 3, 4))
        args = [receiver(rng, owner, element) for _ in range(count)]
        return Drill(_define(name, [param], body), f"{name}({values.lit(args)})")

    return build


# --- hand-written families for the builtins and syntax -----------------------------------


def _sorted_key(rng: random.Random) -> Drill:
    n = Names(rng)
    ws, k = n.pick("words", "names", "items", "tokens"), rng.randint(1, 3)
    key = rng.choice(("len", "str.lower", "lambda w: (len(w), w)", "lambda w: w[-1]",
                      "lambda w: w.count('a')", "str.casefold"))  # fmt: skip
    rev = rng.choice(("", ", reverse=True"))
    out = n.pick("ordered", "ranked", "by_key")
    body = [f"{out} = sorted({ws}, key={key}{rev})"]
    shape = rng.randrange(3)
    if shape == 0:
        body.append(f"return {out}[:{k}]")
    elif shape == 1:
        top = n.pick("top", "best", "first")
        w = n.pick("w", "word", "name")
        body += [f"{top} = []", f"for {w} in {out}:"]
        body += [f"    if {w} not in {top}:", f"        {top}.append({w})",
                 f"    if len({top}) == {k}:", "        break", f"return {top}"]  # fmt: skip
    else:
        body.append(f"return {out}[0] if {out} else None, {out}[-1:]")
    name = rng.choice(("rank_words", "top_words", "order_names", "pick_first"))
    return Drill(_define(name, [ws], body), f"{name}({values.lit(values.words(rng))})")


def _enumerate_find(rng: random.Random) -> Drill:
    n = Names(rng)
    ws, i, w = n.pick("words", "items", "lines"), n.pick("i", "idx", "pos"), n.pick("w", "item")
    start = rng.choice(("", ", 1", ", start=1"))
    test = rng.choice((f"{w}.startswith({values.lit(rng.choice('aAbcsT'))})",
                       f"{w}.isupper()", f"len({w}) > {rng.randint(2, 6)}",
                       f"{w}.lower() == {values.lit(values.word(rng).lower())}",
                       f"{w}.isdigit()"))  # fmt: skip
    if rng.random() < 0.5:
        body = [f"for {i}, {w} in enumerate({ws}{start}):", f"    if {test}:",
                f"        return {i}", "return -1"]  # fmt: skip
    else:
        body = [f"return [{i} for {i}, {w} in enumerate({ws}{start}) if {test}]"]
    name = rng.choice(("find_first", "positions", "locate", "where"))
    return Drill(_define(name, [ws], body), f"{name}({values.lit(values.words(rng))})")


def _zip_pairs(rng: random.Random) -> Drill:
    n = Names(rng)
    a, b = n.pick("names", "keys", "labels"), n.pick("scores", "counts", "amounts")
    x, y = n.pick("name", "key", "label"), n.pick("score", "count", "amount")
    shape = rng.randrange(4)
    if shape == 0:
        body = [f"return dict(zip({a}, {b}))"]
    elif shape == 1:
        body = [f"return [f'{{{x}}}={{{y}}}' for {x}, {y} in zip({a}, {b})]"]
    elif shape == 2:
        best = n.pick("best", "winner")
        body = [f"{best} = None", f"for {x}, {y} in zip({a}, {b}):",
                f"    if {best} is None or {y} > {best}[1]:", f"        {best} = ({x}, {y})",
                f"return {best}"]  # fmt: skip
    else:
        body = [f"pairs = sorted(zip({b}, {a}), reverse=True)", "return [p[1] for p in pairs]"]
    k = rng.randint(0, 4)
    names_ = rng.sample(values.NAMES, k)
    nums = [rng.randint(0, 100) for _ in range(k + rng.choice((0, 0, 1, -1)) if k else 0)]
    name = rng.choice(("pair_up", "combine", "match", "label_scores"))
    return Drill(_define(name, [a, b], body), f"{name}({values.lit(names_)}, {values.lit(nums)})")


def _minmax_sum(rng: random.Random) -> Drill:
    n = Names(rng)
    xs = n.pick("words", "items", "names")
    key = rng.choice(("len", "str.lower", "lambda s: s.count('e')", "lambda s: (len(s), s)"))
    body = [
        f"{n.pick('longest', 'biggest')} = max({xs}, key={key}, default='')",
        f"{n.pick('shortest', 'smallest')} = min({xs}, key={key}, default='')",
        f"{n.pick('total', 'letters')} = sum(len(w) for w in {xs})",
    ]
    rng.shuffle(body)
    if rng.random() < 0.5:
        body.append(f"{n.pick('vowels')} = sum(1 for w in {xs} for c in w if c in 'aeiou')")
    outs = [line.split(" = ")[0] for line in body]
    body.append(f"return {', '.join(outs)}")
    name = rng.choice(("extremes", "stats", "measure", "word_stats"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(values.words(rng))})")


def _numbers(rng: random.Random) -> Drill:
    n = Names(rng)
    xs = n.pick("numbers", "values", "readings", "scores")
    shape = rng.randrange(4)
    if shape == 0:
        body = [f"if not {xs}:", "    return 0, 0, 0",
                f"return min({xs}), max({xs}), sum({xs}) / len({xs})"]  # fmt: skip
    elif shape == 1:
        k = rng.choice((2, 3, 5))
        body = [f"evens = [v for v in {xs} if v % {k} == 0]",
                f"odds = [v for v in {xs} if v % {k}]",
                f"return sum(evens, {rng.randint(0, 10)}), max(odds, default=None)"]  # fmt: skip
    elif shape == 2:
        body = [f"best = max({xs}, key=abs, default=0)",
                f"q, r = divmod(best, {rng.choice((2, 3, 7, 10))})",
                "return best, q, r, abs(best), round(best / 3, 2)"]  # fmt: skip
    else:
        body = ["running = []", "total = 0", f"for v in {xs}:", "    total += v",
                "    running.append(total)", "return running, any(v < 0 for v in running), "
                "all(v >= 0 for v in running)"]  # fmt: skip
    name = rng.choice(("summary", "split_parity", "biggest", "running_total", "crunch"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(values.ints(rng))})")


def _range_steps(rng: random.Random) -> Drill:
    n = Names(rng)
    size = n.pick("n", "limit", "size", "stop")
    start, step = rng.randint(0, 3), rng.choice((1, 2, 3, -1, -2))
    rng_expr = f"range({start}, {size}, {step})" if step > 0 else f"range({size}, {start}, {step})"
    i = n.pick("i", "k", "j")
    shape = rng.randrange(3)
    if shape == 0:
        body = [f"return list({rng_expr})"]
    elif shape == 1:
        body = ["out = []", f"for {i} in {rng_expr}:", f"    if {i} % 3 == 0:",
                "        continue", f"    out.append({i} * {i})", "return out"]  # fmt: skip
    else:
        body = ["total = 0", f"for {i} in {rng_expr}:", f"    total += {i}",
                f"    if total > {rng.randint(5, 40)}:", "        break",
                f"return total, {i}"]  # fmt: skip
    name = rng.choice(("squares", "count_up", "stepper", "walk"))
    return Drill(_define(name, [size], body), f"{name}({rng.randint(0, 14)})")


def _slicing(rng: random.Random) -> Drill:
    n = Names(rng)
    s = n.pick("text", "word", "s", "seq")
    a, b = rng.randint(-4, 3), rng.randint(-3, 6)
    pieces = [f"{s}[::-1]", f"{s}[{a}:]", f"{s}[:{b}]", f"{s}[{a}:{b}]", f"{s}[::2]",
              f"{s}[1::2]", f"{s}[-{rng.randint(1, 3)}:]", f"{s}[:-{rng.randint(1, 3)}]",
              f"{s}[{b}:{a}:-1]", f"{s}[::{rng.choice((-2, 3, -3))}]"]  # fmt: skip
    chosen = rng.sample(pieces, rng.randint(2, 4))
    body = [f"{n.pick('a', 'first', 'head')} = {chosen[0]}",
            f"{n.pick('b', 'second', 'tail')} = {chosen[1]}"]  # fmt: skip
    outs = [line.split(" = ")[0] for line in body]
    if rng.random() < 0.5:
        body.append(f"if {s} == {s}[::-1]:")
        body.append(f"    return {values.lit('palindrome')}, {outs[0]}")
    body.append(f"return {', '.join(outs + chosen[2:])}")
    arg = values.text(rng) if rng.random() < 0.7 else values.ints(rng)
    name = rng.choice(("slices", "cut", "ends", "mirror", "pieces"))
    return Drill(_define(name, [s], body), f"{name}({values.lit(arg)})")


_SPECS = {
    "str": ("{v}", "{v!r}", "{v:>10}", "{v:<8}", "{v:^9}", "{v:*^11}", "{v:.3}", "{v.upper()}"),
    "int": ("{v}", "{v:05d}", "{v:,}", "{v:x}", "{v:b}", "{v:+d}", "{v:>6}", "{v:o}", "{v * 2}"),
    "float": ("{v:.2f}", "{v:.1%}", "{v:10.3f}", "{v:e}", "{v:g}", "{v:,.1f}", "{v:+.0f}",
              "{round(v, 1)}"),
}  # fmt: skip


def _fstrings(rng: random.Random) -> Drill:
    n = Names(rng)
    kinds = rng.sample(("str", "int", "float"), rng.randint(2, 3))
    params = [n.pick(*PARAMS[k]) for k in kinds]
    parts = [re.sub(r"\bv\b", p, rng.choice(_SPECS[k])) for k, p in zip(kinds, params, strict=True)]
    sep = rng.choice((" | ", ": ", ", ", " - ", "\\t"))
    line = n.pick("line", "row", "label", "report")
    body = [f"{line} = f'{sep.join(parts)}'"]
    if rng.random() < 0.5:
        body.append(f"return {line}, len({line})")
    else:
        body.append(f"return {line}.strip()")
    args = [values.lit(receiver(rng, k)) for k in kinds]
    name = rng.choice(("format_row", "render", "describe", "fmt_line"))
    return Drill(_define(name, params, body), f"{name}({', '.join(args)})")


def _comprehensions(rng: random.Random) -> Drill:
    n = Names(rng)
    ws, w = n.pick("words", "tokens", "names"), n.pick("w", "word", "t")
    cond = rng.choice((f"if {w}", f"if len({w}) > 3", f"if {w}.isalpha()", f"if {w}[0].isupper()",
                       f"if not {w}.isdigit()", ""))  # fmt: skip
    if "[0]" in cond:
        cond = f"if {w} and {w}[0].isupper()"
    kind = rng.randrange(4)
    if kind == 0:
        expr = f"[{w}.lower() for {w} in {ws} {cond}]"
    elif kind == 1:
        expr = f"{{{w}: len({w}) for {w} in {ws} {cond}}}"
    elif kind == 2:
        expr = f"sorted({{{w}[:1].upper() for {w} in {ws} {cond}}})"
    else:
        expr = f"[(i, c) for i, {w} in enumerate({ws}) for c in {w}[:2] {cond}]"
    out = n.pick("result", "shaped", "collected")
    body = [f"{out} = {expr.replace('  ', ' ').replace(' ]', ']').replace(' }', '}')}",
            f"return {out}"]  # fmt: skip
    name = rng.choice(("shape", "collect", "initials", "lengths"))
    return Drill(_define(name, [ws], body), f"{name}({values.lit(values.words(rng))})")


def _membership(rng: random.Random) -> Drill:
    n = Names(rng)
    ws, allowed = n.pick("words", "requested", "items"), n.pick("allowed", "stock", "known")
    w = n.pick("w", "item", "name")
    # no set of strings: its order (shown in every state) changes with the hash seed
    container = rng.choice(("tuple", "list", "dict", "str"))
    pool = rng.sample(values.ITEMS, rng.randint(0, 5))
    if container == "tuple":
        arg = values.lit(tuple(pool))
    elif container == "dict":
        arg = values.lit({p: rng.randint(0, 5) for p in pool})
    elif container == "str":
        arg = values.lit(" ".join(pool))
    else:
        arg = values.lit(pool)
    body = ["found, missing = [], []", f"for {w} in {ws}:", f"    if {w} in {allowed}:",
            f"        found.append({w})", "    else:", f"        missing.append({w})",
            "return found, missing"]  # fmt: skip
    if rng.random() < 0.4:
        body[-1] = f"return len(found), [m for m in missing if m not in {ws}[:1]]"
    requested = [rng.choice(values.ITEMS) for _ in range(rng.randint(0, 4))]
    name = rng.choice(("check_order", "split_known", "available", "sort_out"))
    return Drill(_define(name, [ws, allowed], body), f"{name}({values.lit(requested)}, {arg})")


def _sequence_ops(rng: random.Random) -> Drill:
    n = Names(rng)
    a, k = n.pick("row", "items", "word", "base"), n.pick("n", "times", "width")
    shape = rng.randrange(4)
    if shape == 0:
        body = [f"line = '-' * {k}", f"return line + '|' + {a} * 2 + '|' + line"]
        arg = values.lit(values.word(rng))
    elif shape == 1:
        body = [f"grid = [[0] * {k} for _ in range({k})]", f"flat = {a} + [0] * {k}",
                "return grid, flat, len(flat)"]  # fmt: skip
        arg = values.lit(values.ints(rng, 0, 3))
    elif shape == 2:
        body = [f"padded = ({a} + ('?',) * {k})[:{k}]", "head, *rest = padded or ('',)",
                "return head, rest, padded + padded[::-1]"]  # fmt: skip
        arg = values.lit(tuple(values.words(rng, 0, 3)))
    else:
        body = [f"joined = {a} + [str(i) for i in range({k})]",
                "first, second, *others = joined + ['', '']",
                "return first, second, others, ' '.join(joined) * 2"]  # fmt: skip
        arg = values.lit(values.words(rng, 0, 3))
    name = rng.choice(("repeat", "pad", "frame", "grow"))
    return Drill(_define(name, [a, k], body), f"{name}({arg}, {rng.randint(0, 4)})")


def _conversions(rng: random.Random) -> Drill:
    n = Names(rng)
    shape = rng.randrange(4)
    if shape == 0:
        s, c = n.pick("text", "message", "word"), n.pick("ch", "c", "letter")
        shift = rng.randint(1, 25)
        body = ["out = []", f"for {c} in {s}:", f"    if {c}.isalpha() and {c}.isascii():",
                f"        base = ord('a') if {c}.islower() else ord('A')",
                f"        out.append(chr((ord({c}) - base + {shift}) % 26 + base))",
                "    else:", f"        out.append({c})", "return ''.join(out)"]  # fmt: skip
        params, args = [s], [values.lit(values.text(rng))]
    elif shape == 1:
        xs = n.pick("fields", "raw", "cells")
        body = ["numbers = []", "for field in " + xs + ":", "    field = field.strip()",
                "    if field.lstrip('-+').isdigit():", "        numbers.append(int(field))",
                "return numbers, sum(numbers), str(sum(numbers)).zfill(4)"]  # fmt: skip
        params = [xs]
        args = [values.lit([rng.choice(values.NUMERIC_TEXTS + values.WORDS[:5])
                            for _ in range(rng.randint(0, 5))])]  # fmt: skip
    elif shape == 2:
        num = n.pick("n", "number", "value")
        base = rng.choice((2, 8, 16))
        fn = {2: "bin", 8: "oct", 16: "hex"}[base]
        body = [f"digits = {fn}({num})[2:]" if rng.random() < 0.5
                else f"digits = format({num}, '{'bxo'[[2, 16, 8].index(base)]}')",
                f"back = int(digits, {base})",
                "return digits, back, len(str(back)), [int(d) for d in str(back)]"]  # fmt: skip
        params, args = [num], [str(rng.randint(0, 300))]
    else:
        s = n.pick("word", "text", "name")
        body = [f"codes = [ord(c) for c in {s}]", "total = sum(codes)",
                "return codes, chr(total % 26 + 65), str(total)[::-1]"]  # fmt: skip
        params, args = [s], [values.lit(values.word(rng))]
    name = rng.choice(("shift", "parse_numbers", "to_base", "codes", "convert"))
    return Drill(_define(name, params, body), f"{name}({', '.join(args)})")


def _reversed_unpack(rng: random.Random) -> Drill:
    n = Names(rng)
    xs = n.pick("pairs", "records", "rows")
    a, b = n.pick("name", "key", "label"), n.pick("score", "value", "qty")
    shape = rng.randrange(3)
    if shape == 0:
        body = ["out = []", f"for {a}, {b} in reversed({xs}):", f"    out.append(({b}, {a}))",
                "return out"]  # fmt: skip
    elif shape == 1:
        body = [f"if len({xs}) < 2:", "    return None", f"(first, _), *middle, last = {xs}",
                "return first, len(middle), last[::-1]"]  # fmt: skip
    else:
        body = [f"{a}s = [p[0] for p in {xs}]", f"{b}s = [p[1] for p in {xs}]",
                f"{a}s, {b}s = {b}s, {a}s", f"return list(reversed({a}s)), {b}s"]  # fmt: skip
    k = rng.randint(0, 4)
    rows = [(rng.choice(values.NAMES), rng.randint(0, 99)) for _ in range(k)]
    name = rng.choice(("flip", "unpack", "swap_columns", "walk_back"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(rows)})")


def _dict_counting(rng: random.Random) -> Drill:
    n = Names(rng)
    s, counts = n.pick("text", "sentence", "words"), n.pick("counts", "freq", "tally")
    w = n.pick("w", "word", "token")
    split = rng.choice((f"{s}.lower().split()", f"{s}.split()", f"{s}.replace(',', ' ').split()"))
    way = rng.randrange(3)
    if way == 0:
        update = [f"    {counts}[{w}] = {counts}.get({w}, 0) + 1"]
    elif way == 1:
        update = [f"    if {w} in {counts}:", f"        {counts}[{w}] += 1", "    else:",
                  f"        {counts}[{w}] = 1"]  # fmt: skip
    else:
        update = [f"    {counts}.setdefault({w}[:1], []).append({w})"]
    body = [f"{counts} = {{}}", f"for {w} in {split}:", *update]
    tail = rng.randrange(3)
    if tail == 0 or way == 2:
        body.append(f"return {counts}")
    elif tail == 1:
        body.append(f"return sorted({counts}.items(), key=lambda kv: (-kv[1], kv[0]))[:3]")
    else:
        body.append(f"return max({counts}, key={counts}.get) if {counts} else None")
    name = rng.choice(("word_count", "count_words", "frequencies", "group_words"))
    return Drill(_define(name, [s], body), f"{name}({values.lit(rng.choice(values.SENTENCES))})")


def _map_filter(rng: random.Random) -> Drill:
    n = Names(rng)
    xs = n.pick("words", "items", "values")
    fn = rng.choice(("str.upper", "str.strip", "len", "str.title", "lambda w: w[::-1]"))
    pred = rng.choice(("None", "str.isalpha", "lambda w: len(w) > 2", "str.islower"))
    body = [f"mapped = list(map({fn}, {xs}))", f"kept = list(filter({pred}, {xs}))"]
    if rng.random() < 0.5:
        body.append("return mapped, kept, isinstance(mapped, list)")
    else:
        body.append("return tuple(mapped), set(kept) == set(" + xs + "), bool(kept)")
    name = rng.choice(("apply_all", "map_and_filter", "pipeline"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(values.words(rng))})")


def _char_classes(rng: random.Random) -> Drill:
    n = Names(rng)
    s, c = n.pick("text", "password", "line", "code"), n.pick("c", "ch", "char")
    tests = rng.sample(("isdigit", "isalpha", "isupper", "islower", "isspace", "isalnum"), 3)
    names_ = [t[2:] for t in tests]
    body = [f"{name} = 0" for name in names_] + [f"for {c} in {s}:"]
    for k, (t, name) in enumerate(zip(tests, names_, strict=True)):
        body += [f"    {'if' if k == 0 else 'elif'} {c}.{t}():", f"        {name} += 1"]
    if rng.random() < 0.5:
        body.append(f"return {{{', '.join(f'{name!r}: {name}' for name in names_)}}}")
    else:
        body.append(f"return {' + '.join(names_)} == len({s}), {', '.join(names_)}")
    name = rng.choice(("classify", "char_stats", "password_check", "count_kinds"))
    return Drill(_define(name, [s], body), f"{name}({values.lit(values.text(rng))})")


def _expected_error(rng: random.Random) -> Drill:
    """Code that fails on its argument: the trace ends with the exception."""
    n = Names(rng)
    shape = rng.randrange(5)
    if shape == 0:
        xs = n.pick("lines", "rows")
        body = ["ages = {}", f"for line in {xs}:", "    name, age = line.split(':')",
                "    ages[name.strip()] = int(age)", "return ages"]  # fmt: skip
        good = [f"{rng.choice(values.NAMES)}: {rng.randint(1, 90)}" for _ in range(2)]
        bad = rng.choice(("Bob: thirty", "no colon", "a:b:c", "Eve:"))
        args = [values.lit([*good[: rng.randint(0, 2)], bad])]
    elif shape == 1:
        xs = n.pick("words", "items")
        body = [f"pos = {xs}.index({values.lit('zebra')})", f"return {xs}[pos:]"]
        args = [values.lit(values.words(rng))]
    elif shape == 2:
        xs = n.pick("stock", "prices")
        key = rng.choice(values.NAMES)
        body = ["total = 0", f"for key in {values.lit([*rng.sample(values.ITEMS, 2), key])}:",
                f"    total += {xs}[key]", "return total"]  # fmt: skip
        args = [values.lit({k: rng.randint(1, 9) for k in values.ITEMS})]
    elif shape == 3:
        xs = n.pick("values", "scores")
        body = [f"total = sum({xs})", f"return total / len({xs})"]
        args = ["[]"]
    else:
        xs = n.pick("text", "word")
        body = [f"first, second = {xs}.split()", "return second, first"]
        args = [values.lit(rng.choice(("one", "one two three", "", "a b c")))]
    name = rng.choice(("parse", "lookup", "average", "split_name", "pick"))
    return Drill(_define(name, [xs], body), f"{name}({', '.join(args)})")


def _caught_error(rng: random.Random) -> Drill:
    """The same failures caught the way people catch them (normal exit)."""
    n = Names(rng)
    xs, item = n.pick("fields", "raw_values", "cells"), n.pick("field", "value", "cell")
    exc = rng.choice(("ValueError", "(ValueError, TypeError)", "Exception"))
    body = ["good, bad = [], 0", f"for {item} in {xs}:", "    try:",
            f"        good.append({rng.choice(('int', 'float'))}({item}))",
            f"    except {exc}:", "        bad += 1"]  # fmt: skip
    if rng.random() < 0.4:
        body += ["    finally:", "        pass"]
    body.append("return good, bad")
    arg = [rng.choice((*values.NUMERIC_TEXTS, *values.WORDS[:8], "3.5", "1e2", "")) for _ in
           range(rng.randint(0, 5))]  # fmt: skip
    name = rng.choice(("parse_all", "safe_numbers", "to_numbers"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(arg)})")


def _while_loops(rng: random.Random) -> Drill:
    """``while`` loops as people write them: two pointers, digit loops, draining a list."""
    n = Names(rng)
    shape = rng.randrange(4)
    if shape == 0:
        s = param = n.pick("text", "word", "phrase")
        clean = rng.choice((f"{s}.lower()", f"''.join(c for c in {s}.lower() if c.isalnum())"))
        body = [f"chars = {clean}", "left, right = 0, len(chars) - 1", "while left < right:",
                "    if chars[left] != chars[right]:", "        return False",
                "    left += 1", "    right -= 1", "return True"]  # fmt: skip
        arg = values.lit(rng.choice((*values.WORDS[20:30], *values.SENTENCES[5:7], "")))
    elif shape == 1:
        num = param = n.pick("n", "number", "value")
        base = rng.choice((10, 10, 2, 8))
        body = ["digits = []", f"{num} = abs({num})", f"while {num} > 0:",
                f"    {num}, digit = divmod({num}, {base})", "    digits.append(digit)",
                "return digits[::-1] or [0], sum(digits)"]  # fmt: skip
        arg = str(rng.choice((0, 7, 42, 255, 1024, 90210, -315)))
    elif shape == 2:
        q = param = n.pick("queue", "pending", "tasks")
        limit = rng.randint(2, 12)
        body = ["done, budget = [], " + str(limit), f"while {q} and budget > 0:",
                f"    job = {q}.pop(0)", "    cost = len(job)", "    if cost > budget:",
                f"        {q}.insert(0, job)", "        break", "    budget -= cost",
                "    done.append(job)", f"return done, {q}, budget"]  # fmt: skip
        arg = values.lit(values.words(rng, 0, 5))
    else:
        xs = param = n.pick("values", "sorted_items", "data")
        target = rng.randint(-5, 40)
        body = ["low, high = 0, len(" + xs + ")", "while low < high:",
                "    mid = (low + high) // 2", f"    if {xs}[mid] < {target}:",
                "        low = mid + 1", "    else:", "        high = mid",
                f"return low, low < len({xs}) and {xs}[low] == {target}"]  # fmt: skip
        arg = values.lit(sorted(values.ints(rng)))
    name = rng.choice(("scan", "walk", "search", "drain", "check"))
    return Drill(_define(name, [param], body), f"{name}({arg})")


_CHAR_TESTS = ("{c}.isdigit()", "{c}.isupper()", "{c}.islower()", "{c}.isalpha()",
               "{c} in 'aeiou'", "{c} == ' '", "{c}.isspace()", "{c} in {punct!r}",
               "{i} % 2 == 0", "{i} < {k}", "{i} >= len({s}) - {k}",
               "{c} not in {out}")  # fmt: skip
_CHAR_EDITS = ("{out} += {c}.upper()", "{out} += {c}.lower()", "{out} += {c} * 2",
               "{out} += {c}.swapcase()", "{out} += str({i})", "{out} += {fill!r}",
               "{out} = {c} + {out}", "{out} += chr(ord({c}) + 1)", "continue",
               "{out} += {s}[-{i} - 1]")  # fmt: skip
_CHAR_TAILS = ("return {out}", "return {out}, len({out})", "return {out}[::-1]",
               "return {out}.strip()", "return {out} if {out} else {s}")  # fmt: skip


def _char_build(rng: random.Random) -> Drill:
    """A new string built one character at a time, each branch editing it differently."""
    n = Names(rng)
    s, out = n.pick("text", "s", "word", "line"), n.pick("out", "result", "res", "new")
    c, i = n.pick("ch", "c", "char", "letter"), n.pick("i", "idx", "pos")
    fields = {"s": s, "out": out, "c": c, "i": i, "k": rng.randint(1, 4),
              "punct": rng.choice((".,!?", "-_", ",;:")),
              "fill": rng.choice(values.FILL_CHARS)}  # fmt: skip
    indexed = rng.random() < 0.6
    head = f"for {i}, {c} in enumerate({s}):" if indexed else f"for {c} in {s}:"
    tests = [t for t in _CHAR_TESTS if indexed or "{i}" not in t]
    edits = [e for e in _CHAR_EDITS if indexed or "{i}" not in e]
    body = [f"{out} = {rng.choice(('', '', '#'))!r}", head]
    for k, test in enumerate(rng.sample(tests, rng.randint(1, 3))):
        body += [f"    {'if' if k == 0 else 'elif'} {test.format(**fields)}:",
                 f"        {rng.choice(edits).format(**fields)}"]  # fmt: skip
    if rng.random() < 0.6:
        body += ["    else:", f"        {out} += {c}"]
    body.append(rng.choice(_CHAR_TAILS).format(**fields))
    name = rng.choice(("transform", "encode", "rewrite", "mangle", "convert", "process"))
    arg = rng.choice((values.text(rng), values.word(rng), rng.choice(values.NUMERIC_TEXTS)))
    return Drill(_define(name, [s], body), f"{name}({values.lit(arg)})")


def _list_edit(rng: random.Random) -> Drill:
    """A list changed in place inside a loop: insert, pop, remove, swaps and slice writes."""
    n = Names(rng)
    xs, x = n.pick("items", "values", "nums", "data", "arr"), n.pick("x", "v", "item")
    shape = rng.randrange(6)
    t = rng.choice((0, 1, 2, 3, 5, -1))
    arg: list = values.ints(rng, 0, 8)
    if shape == 0:
        body = [f"while {t} in {xs}:", f"    {xs}.remove({t})", f"return {xs}"]
    elif shape == 1:
        test = rng.choice((f"{xs}[i] < {t}", f"{xs}[i] > {t}", f"{xs}[i] == {t}",
                           f"{xs}[i] % 2 == 0"))  # fmt: skip
        edit = rng.choice((f"{xs}.pop(i)", f"{xs}.insert(i, {xs}[i])", f"del {xs}[i]"))
        body = [f"for i in range(len({xs}) - 1, -1, -1):", f"    if {test}:", f"        {edit}",
                f"return {xs}"]  # fmt: skip
    elif shape == 2:
        body = [f"for i in range(0, len({xs}) - 1, 2):",
                f"    {xs}[i], {xs}[i + 1] = {xs}[i + 1], {xs}[i]", f"return {xs}"]  # fmt: skip
        arg = arg if rng.random() < 0.5 else values.words(rng)
    elif shape == 3:
        where = rng.choice(("", "0", "-1", "1"))
        body = ["taken = []", f"while len({xs}) > {rng.randint(0, 3)}:",
                f"    taken.append({xs}.pop({where}))", f"return taken, {xs}"]  # fmt: skip
        if rng.random() < 0.5:
            body.insert(1, f"{xs}.{rng.choice(('sort()', 'reverse()', 'sort(reverse=True)'))}")
        arg = arg if rng.random() < 0.5 else values.words(rng)
    elif shape == 4:
        a, b = rng.randint(0, 2), rng.randint(1, 4)
        new = rng.choice(("[]", f"[{t}]", f"{xs}[{a}:{b}][::-1]"))
        body = [f"{xs}[{a}:{b}] = {new}", f"{xs}.extend({xs}[:{rng.randint(1, 2)}])",
                f"{xs}.insert({rng.randint(-2, 3)}, {t})", f"return {xs}"]  # fmt: skip
    else:
        where = rng.choice(("0", "len(out)", "len(out) // 2"))
        body = ["out = []", f"for {x} in {xs}:", f"    if {x} in out:", "        continue",
                f"    out.insert({where}, {x})", "return out"]  # fmt: skip
        arg = arg if rng.random() < 0.5 else values.words(rng)
    name = rng.choice(("edit", "reshape", "clean", "shuffle_pairs", "drain", "rework"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(arg)})")


_ORDERS = ("kv[1]", "-kv[1]", "kv[0]", "(kv[1], kv[0])")


def _dict_edit(rng: random.Random) -> Drill:
    """A dict read and changed the ways code does: update, pop, setdefault, inversion, order."""
    n = Names(rng)
    d = n.pick("stock", "scores", "table", "ages", "counts", "prices")
    k, v = n.pick("key", "k", "name"), n.pick("value", "v", "amount")
    shape = rng.randrange(6)
    missing = rng.choice(values.ITEMS)
    if shape == 0:
        default = rng.choice(("None", "0", repr("none")))
        body = [f"{d}.update({values.lit(values.counts(rng, 0, 3))})",
                f"removed = {d}.pop({missing!r}, {default})",
                f"return {d}, removed, len({d})"]  # fmt: skip
    elif shape == 1:
        test = f"{d}[{k}] {rng.choice(('<', '>', '=='))} {rng.randint(0, 10)}"
        body = [f"for {k} in list({d}):", f"    if {test}:", f"        del {d}[{k}]",
                f"return {d}"]  # fmt: skip
    elif shape == 2:
        result = rng.choice(("inverted", "sorted(inverted.items())", "max(inverted, default=-1)"))
        body = ["inverted = {}", f"for {k}, {v} in {d}.items():",
                f"    inverted.setdefault({v}, []).append({k})", f"return {result}"]  # fmt: skip
    elif shape == 3:
        pick = rng.choice(("0", "-1", ":2"))
        body = [f"pairs = sorted({d}.items(), key=lambda kv: {rng.choice(_ORDERS)})",
                "firsts = [p[0] for p in pairs[:2]]",
                f"return firsts, list({d})[{pick}] if {d} else None"]  # fmt: skip
    elif shape == 4:
        body = [f"{d}[{missing!r}] = {d}.get({missing!r}, 0) + {rng.randint(1, 5)}",
                f"{d}.setdefault({rng.choice(values.ITEMS)!r}, {rng.randint(0, 3)})",
                f"last = {d}.popitem()", f"return {d}, last"]  # fmt: skip
    else:
        body = [f"total = sum({d}.values())", "shares = {}", f"for {k} in sorted({d}):",
                f"    shares[{k}] = round({d}[{k}] / total, 2) if total else 0",
                "return shares"]  # fmt: skip
    name = rng.choice(("adjust", "restock", "summarize", "invert", "prune", "rank"))
    return Drill(_define(name, [d], body), f"{name}({values.lit(values.counts(rng, 0, 5))})")


_WINDOW_RESULTS = ("sum(window)", "max(window)", "window[::-1]", "len(set(window))")
_PAIR_RESULTS = ("a * b", "a - b", "(a, b)", "a > b")


def _index_pairs(rng: random.Random) -> Drill:
    """Nested loops over positions, with ``break`` and ``continue``: pairs, windows, runs."""
    n = Names(rng)
    xs = n.pick("nums", "values", "items", "letters")
    shape = rng.randrange(4)
    arg: list = values.ints(rng, 0, 6)
    if shape == 0:
        body = ["found = []", f"for i in range(len({xs})):",
                f"    for j in range(i + 1, len({xs})):",
                f"        if {xs}[i] + {xs}[j] == {rng.randint(0, 12)}:",
                "            found.append((i, j))",
                f"            {rng.choice(('break', 'continue'))}", "return found"]  # fmt: skip
    elif shape == 1:
        w = rng.randint(1, 3)
        body = ["out = []", f"for i in range(len({xs}) - {w} + 1):",
                f"    window = {xs}[i:i + {w}]", f"    out.append({rng.choice(_WINDOW_RESULTS)})",
                "return out"]  # fmt: skip
    elif shape == 2:
        body = ["runs, count = [], 1", f"for i in range(1, len({xs})):",
                f"    if {xs}[i] == {xs}[i - 1]:", "        count += 1", "    else:",
                f"        runs.append(({xs}[i - 1], count))", "        count = 1",
                f"if {xs}:", f"    runs.append(({xs}[-1], count))", "return runs"]  # fmt: skip
        if rng.random() < 0.5:
            arg = list(values.word(rng))
        else:
            arg = [rng.choice((1, 2, 2)) for _ in range(rng.randint(0, 6))]
    else:
        body = ["grid = []", f"for i, a in enumerate({xs}):", "    row = []",
                f"    for j, b in enumerate({xs}):", "        if i == j:", "            continue",
                f"        row.append({rng.choice(_PAIR_RESULTS)})", "    grid.append(row)",
                "return grid"]  # fmt: skip
        arg = values.ints(rng, 0, 3)
    name = rng.choice(("pairs", "windows", "runs", "table", "scan_pairs"))
    return Drill(_define(name, [xs], body), f"{name}({values.lit(arg)})")


def _families() -> tuple[Family, ...]:
    generic = [Family(f"{owner}.steps", _steps(owner)) for owner in OWNERS]
    generic += [Family(f"{owner}.each", _each(owner)) for owner in OWNERS]
    handwritten = [
        Family("builtins.sorted_key", _sorted_key),
        Family("builtins.enumerate_find", _enumerate_find),
        Family("builtins.zip_pairs", _zip_pairs),
        Family("builtins.minmax_sum", _minmax_sum),
        Family("builtins.numbers", _numbers),
        Family("builtins.range_steps", _range_steps),
        Family("builtins.map_filter", _map_filter),
        Family("builtins.conversions", _conversions),
        Family("syntax.slicing", _slicing),
        Family("syntax.fstrings", _fstrings),
        Family("syntax.comprehensions", _comprehensions),
        Family("syntax.membership", _membership),
        Family("syntax.sequence_ops", _sequence_ops),
        Family("syntax.reversed_unpack", _reversed_unpack),
        Family("idiom.dict_counting", _dict_counting),
        Family("idiom.char_classes", _char_classes),
        Family("loops.while_scan", _while_loops),
        Family("idiom.caught_error", _caught_error),
        Family("idiom.expected_error", _expected_error, expect_error=True),
        Family("idiom.char_build", _char_build),
        Family("idiom.list_edit", _list_edit),
        Family("idiom.dict_edit", _dict_edit),
        Family("loops.index_pairs", _index_pairs),
    ]
    return (*generic, *handwritten)


FAMILIES: tuple[Family, ...] = _families()


def families_on_side(side: Side) -> tuple[Family, ...]:
    """The families whose programs may appear in data of ``side`` (split by family name)."""
    return tuple(f for f in FAMILIES if on_side(f.origin, side))


def drill_programs(
    seed: int, count: int, side: Side = "all"
) -> tuple[list[TrainingProgram], Counter[str]]:
    """``count`` validated drills from the families on ``side``, deterministic in
    ``(seed, count)``, with a tally of kept and rejected candidates."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    families = families_on_side(side)
    plain = side != "heldout"  # the held-out drill sets stay as they were made
    return [_one(rng, families, stats, plain) for _ in range(count)], stats


def _plain_sometimes(
    program: TrainingProgram, rng: random.Random, family: Family, stats: Counter[str]
) -> TrainingProgram:
    """``program``, or for a share of the drills the same drill with plain names
    (:mod:`.plain_names`) where it still runs as its family means."""
    if rng.random() >= plain_names.SHARE:
        return program
    renamed = plain_names.plainly_named(program, rng)
    if renamed is None:
        return program
    verdict = check_program(
        renamed.source, renamed.entry, expect_error=family.expect_error, min_lines=MIN_LINES
    )
    if not verdict.ok:
        stats["plain names refused (kept its own)"] += 1
        return program
    stats["kept plain names"] += 1
    return renamed


def _one(
    rng: random.Random, families: tuple[Family, ...], stats: Counter[str], plain: bool
) -> TrainingProgram:
    for _ in range(MAX_FAMILY_DRAWS):
        family = rng.choice(families)
        for _ in range(DRILL_ATTEMPTS):
            try:
                drill = family.build(rng)
            except Exception as exc:  # a template bug: count it, draw again
                stats[f"template failed: {family.name}: {type(exc).__name__}"] += 1
                continue
            verdict = check_program(
                drill.source, drill.entry, expect_error=family.expect_error, min_lines=MIN_LINES
            )
            if verdict.ok:
                stats["kept drill"] += 1
                program = TrainingProgram(drill.source, drill.entry, family.origin)
                return _plain_sometimes(program, rng, family, stats) if plain else program
            stats[f"rejected drill: {verdict.reason.split(':')[0]}"] += 1
    raise RuntimeError(f"no valid drill after {MAX_FAMILY_DRAWS} families")
