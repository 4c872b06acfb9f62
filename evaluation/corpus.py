"""A deterministic corpus of small, self-contained Python programs.

The corpus exists for two jobs only:

* checking a tracer's step semantics (line, call, return and exception events, the state
  tree it builds) against a real debugger (the standard library's ``bdb``), and
* benchmarking how fast programs can be traced.

It is never training data: nothing here is meant to be fed to a model, and no program is
taken from CruxEval or copied from another project. Every program is composed from a
library of hand-written snippets (small top-level functions, or a class plus a function
using it; each a real ``.py`` file in ``corpus_snippets/``) with deterministic argument
generators. A program picks one to four snippets and
adds either module-level driver code (script mode, ``entry is None``) or a single entry call
expression that is evaluated after the module ran with ``__name__ != "__main__"``.

Every program uses only the standard library, is deterministic (no clocks, no unseeded
randomness, no printed object ids or hash-ordered string sets), does no I/O besides a few
prints, and finishes quickly with at most about 2,000 executed lines. About 8% of the
programs end with an uncaught exception, in both script and entry mode.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CorpusProgram", "corpus"]


@dataclass(frozen=True)
class CorpusProgram:
    """One corpus program.

    ``entry`` is None for a script (run with ``__name__ == "__main__"``); otherwise it is a
    call expression evaluated in the module's namespace after the module was executed with
    a ``__name__`` other than ``"__main__"``.
    """

    name: str
    source: str
    entry: str | None


ArgGen = Callable[[random.Random], str]


@dataclass(frozen=True)
class _Snippet:
    key: str  # short, file-name safe; used in program names and as the source file's name
    source: str  # module-level code defining ``call`` (and helpers): corpus_snippets/KEY.py
    call: str  # name of the function the driver calls
    args: ArgGen  # rng -> argument list text, e.g. "[3, 1, 2], 4"
    bad: ArgGen | None = None  # rng -> a full call expression that raises (uncaught)


# Each snippet's source is a real Python file, ``corpus_snippets/KEY.py``, read once at import.
# The files are data (ruff leaves them as they are); the table below says how to call each one.
SNIPPET_DIR = Path(__file__).resolve().parent / "corpus_snippets"


def _snip(key: str, call: str, args: ArgGen, bad: ArgGen | None = None) -> _Snippet:
    path = SNIPPET_DIR / f"{key}.py"
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"corpus snippet {key!r} has no source file {path}") from None
    return _Snippet(key, source, call, args, bad)


# --------------------------------------------------------------------------------------
# Argument generators. Each returns the text of an argument list; all randomness comes
# from the ``random.Random`` handed in.
# --------------------------------------------------------------------------------------

_WORDS = (
    "apple", "banana", "cherry", "delta", "echo", "fig", "grape", "kiwi",
    "lemon", "mango", "noon", "level", "radar", "stats", "tree", "bee",
)  # fmt: skip

_ANAGRAMS = (
    "listen", "silent", "enlist", "stone", "notes", "onset", "apple",
    "pale", "leap", "plea", "rat", "tar", "art", "cat",
)  # fmt: skip

_PHRASES = (
    "never odd or even", "step on no pets", "hello world", "a man a plan",
    "Was it a car or a cat I saw", "no lemon, no melon", "python", "racecar",
)  # fmt: skip

_SENTENCES = (
    "the cat and the hat",
    "a tale of two cities",
    "to be or not to be",
    "the quick brown fox jumps over the lazy dog",
    "one fish two fish red fish blue fish",
    "it was the best of times",
)


def _int(lo: int, hi: int) -> ArgGen:
    def gen(rng: random.Random) -> str:
        return str(rng.randint(lo, hi))

    return gen


def _ints(lo: int, hi: int, kmin: int = 3, kmax: int = 8) -> ArgGen:
    def gen(rng: random.Random) -> str:
        k = rng.randint(kmin, kmax)
        return repr([rng.randint(lo, hi) for _ in range(k)])

    return gen


def _distinct(lo: int, hi: int, kmin: int, kmax: int, *, ordered: bool = False) -> ArgGen:
    def gen(rng: random.Random) -> str:
        xs = rng.sample(range(lo, hi + 1), rng.randint(kmin, kmax))
        return repr(sorted(xs) if ordered else xs)

    return gen


def _choice(*options: str) -> ArgGen:
    def gen(rng: random.Random) -> str:
        return rng.choice(options)

    return gen


def _join(*gens: ArgGen) -> ArgGen:
    def gen(rng: random.Random) -> str:
        return ", ".join(g(rng) for g in gens)

    return gen


def _words(pool: tuple[str, ...], kmin: int, kmax: int) -> ArgGen:
    def gen(rng: random.Random) -> str:
        return repr(rng.sample(pool, rng.randint(kmin, kmax)))

    return gen


def _word(pool: tuple[str, ...] = _WORDS) -> ArgGen:
    def gen(rng: random.Random) -> str:
        return repr(rng.choice(pool))

    return gen


def _pairs(lo: int, hi: int, kmin: int, kmax: int, lo2: int | None = None) -> ArgGen:
    def gen(rng: random.Random) -> str:
        low2 = lo if lo2 is None else lo2
        k = rng.randint(kmin, kmax)
        return repr([(rng.randint(lo, hi), rng.randint(low2, hi)) for _ in range(k)])

    return gen


def _matrix(rmin: int, rmax: int, cmin: int, cmax: int, lo: int = -3, hi: int = 9) -> ArgGen:
    def gen(rng: random.Random) -> str:
        rows, cols = rng.randint(rmin, rmax), rng.randint(cmin, cmax)
        return repr([[rng.randint(lo, hi) for _ in range(cols)] for _ in range(rows)])

    return gen


def _square_matrix(rng: random.Random) -> str:
    n = rng.randint(1, 3)
    return repr([[rng.randint(-4, 6) for _ in range(n)] for _ in range(n)])


def _matmul_args(rng: random.Random) -> str:
    r, k, c = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)
    a = [[rng.randint(-2, 5) for _ in range(k)] for _ in range(r)]
    b = [[rng.randint(-2, 5) for _ in range(c)] for _ in range(k)]
    return f"{a!r}, {b!r}"


def _nested_value(rng: random.Random, depth: int) -> list[object]:
    out: list[object] = []
    for _ in range(rng.randint(1, 3)):
        if depth > 0 and rng.random() < 0.45:
            out.append(_nested_value(rng, depth - 1))
        else:
            out.append(rng.randint(0, 9))
    return out


def _nested(rng: random.Random) -> str:
    return repr(_nested_value(rng, 2))


def _tree_value(rng: random.Random, depth: int) -> object:
    if depth == 0 or rng.random() < 0.25:
        return None
    return (rng.randint(1, 9), _tree_value(rng, depth - 1), _tree_value(rng, depth - 1))


def _tree(rng: random.Random) -> str:
    return repr((rng.randint(1, 9), _tree_value(rng, 2), _tree_value(rng, 2)))


def _rpn(rng: random.Random) -> str:
    parts = [str(rng.randint(1, 9))]
    for _ in range(rng.randint(1, 4)):
        parts.append(str(rng.randint(1, 9)))
        parts.append(rng.choice("+-*"))
    return repr(" ".join(parts))


def _list_and_member(lo: int, hi: int, kmin: int, kmax: int) -> ArgGen:
    def gen(rng: random.Random) -> str:
        xs = [rng.randint(lo, hi) for _ in range(rng.randint(kmin, kmax))]
        target = rng.choice(xs) if rng.random() < 0.7 else hi + 1
        return f"{xs!r}, {target}"

    return gen


def _sorted_and_target(rng: random.Random) -> str:
    xs = sorted(rng.sample(range(1, 40), rng.randint(3, 10)))
    target = rng.choice(xs) if rng.random() < 0.7 else 40
    return f"{xs!r}, {target}"


def _str_dict(kmin: int, kmax: int) -> ArgGen:
    def gen(rng: random.Random) -> str:
        keys = rng.sample(_WORDS[:8], rng.randint(kmin, kmax))
        return repr({k: rng.randint(0, 9) for k in keys})

    return gen


def _records(kmin: int, kmax: int) -> ArgGen:
    def gen(rng: random.Random) -> str:
        names = rng.sample(_WORDS, rng.randint(kmin, kmax))
        return repr([(name, rng.randint(1, 60)) for name in names])

    return gen


def _weighted_args(rng: random.Random) -> str:
    values = ", ".join(str(rng.randint(-3, 9)) for _ in range(rng.randint(1, 5)))
    extra = rng.choice(["", ", weight=2", ", weight=3, offset=1", ", offset=-4"])
    return values + extra


def _score_rows(rng: random.Random) -> str:
    rows = []
    for name in rng.sample(_WORDS, rng.randint(2, 4)):
        total = rng.randint(5, 20)
        rows.append((name, rng.randint(0, total), total))
    return repr(rows)


def _pair_text(rng: random.Random) -> str:
    keys = rng.sample(("host", "port", "user", "mode", "level"), rng.randint(1, 4))
    return repr(";".join(f"{k} = {rng.randint(1, 99)}" for k in keys))


def _settings_args(rng: random.Random) -> str:
    settings = {"depth": str(rng.randint(1, 9)), "width": rng.choice(["4", "12", "wide"])}
    names = rng.sample(["depth", "width", "height", "color"], rng.randint(2, 4))
    return f"{settings!r}, {names!r}"


def _orders(rng: random.Random) -> str:
    items = ("bolt", "nut", "gear")
    return repr([(rng.choice(items), rng.randint(-4, 6)) for _ in range(rng.randint(3, 7))])


def _codes(rng: random.Random) -> str:
    pool = (" ab-12", "x-99", "c3 ", "dd-4-1", "X7", "q-0", " zz9 ")
    return repr(rng.sample(pool, rng.randint(2, 5)))


def _graph(rng: random.Random) -> str:
    graphs = (
        "{1: [2, 3], 2: [4], 3: [4, 5], 4: [6], 5: [6], 6: []}",
        "{0: [1, 2], 1: [3], 2: [3], 3: [0]}",
        "{1: [2], 2: [3], 3: [1, 4], 4: []}",
        "{5: [3, 8], 3: [1, 4], 8: [9], 1: [], 4: [], 9: [5]}",
    )
    graph = rng.choice(graphs)
    return f"{graph}, {next(iter(ast.literal_eval(graph)))}"


def _dag(rng: random.Random) -> str:
    dags = (
        ("{1: [2, 3], 2: [4], 3: [4, 5], 4: [6], 5: [6]}", 1, 6),
        ("{0: [1, 2, 3], 1: [4], 2: [4, 5], 3: [5], 4: [6], 5: [6]}", 0, 6),
        ("{1: [2, 3, 4], 2: [5], 3: [5], 4: [5], 5: [6, 7], 6: [8], 7: [8]}", 1, 8),
    )
    graph, start, end = rng.choice(dags)
    return f"{graph}, {start}, {end}"


# --------------------------------------------------------------------------------------
# The snippet library, in the order programs draw it: key (its source file), the function
# the driver calls, its argument generator and, for some, a call that raises. Top-level names
# are unique across snippets. Several snippets share identical source lines on purpose
# (``    return result``, ``    for x in xs:``, ...).
# --------------------------------------------------------------------------------------

_SNIPPETS: tuple[_Snippet, ...] = (
    # ---- loops --------------------------------------------------------------------
    _snip("sum_evens", "sum_evens", _ints(-5, 20, 3, 9)),
    _snip("first_negative", "first_negative", _ints(-3, 9, 3, 8)),
    _snip("collatz", "collatz_steps", _int(2, 12)),
    _snip("prime_flags", "prime_flags", _ints(0, 60, 3, 7)),
    _snip("primes_below", "primes_below", _int(5, 30)),
    _snip("linear_search", "linear_search", _list_and_member(0, 20, 3, 9)),
    _snip("bubble_sort", "bubble_sort", _ints(0, 30, 3, 7)),
    _snip("insertion_sort", "insertion_sort", _ints(-9, 30, 3, 8)),
    _snip("gcd_lcm", "lcm_all", _ints(1, 12, 2, 5)),
    _snip("digit_sum", "digit_sum", _int(100, 99999)),
    _snip("skip_multiples", "skip_multiples", _join(_int(4, 12), _int(2, 4))),
    _snip("find_divisor", "find_divisor", _join(_int(10, 40), _int(2, 5))),
    _snip("roman", "to_roman", _int(1, 60)),
    _snip("kadane", "max_subarray", _ints(-8, 8, 3, 10), _choice("max_subarray([])")),
    _snip("prefix_sums", "prefix_sums", _ints(-5, 9, 3, 8)),
    _snip("sieve", "sieve", _int(10, 40), _choice("sieve(0)")),
    _snip(
        "coin_ways",
        "coin_ways",
        _join(_int(3, 12), _choice("[1, 2, 5]", "[2, 3]", "[1, 3, 4]", "(5, 1)")),
    ),
    _snip("bit_count", "bit_table", _ints(0, 255, 2, 6)),
    _snip(
        "to_base",
        "to_base",
        _join(_int(0, 500), _int(2, 16)),
        _choice("to_base(10, 0)", "to_base(37, 0)"),
    ),
    _snip("newton_sqrt", "newton_sqrt", _join(_int(2, 50), _int(3, 6))),
    _snip("classify", "classify_all", _ints(-5, 120, 3, 7)),
    _snip("grade", "grade_report", _ints(50, 100, 3, 7)),
    _snip("average", "average", _ints(0, 20, 2, 6), _choice("average([])")),
    _snip("chain_calls", "compose_all", _ints(-3, 6, 2, 5)),
    _snip("parity", "parity_words", _ints(0, 9, 2, 5)),
    _snip("transpose", "transpose", _matrix(2, 3, 2, 4)),
    _snip("flatten", "flatten", _matrix(2, 4, 1, 3)),
    _snip("char_hist", "char_hist", _word()),
    _snip(
        "mod_classes",
        "mod_classes",
        _join(_ints(0, 40, 3, 8), _int(2, 6)),
        _choice("mod_classes([1, 2, 3], 0)"),
    ),
    _snip("grid_pairs", "grid_pairs", _int(2, 5)),
    _snip("invert_dict", "invert_dict", _str_dict(2, 5)),
    _snip("identity", "identity", _int(1, 4)),
    _snip("triples", "triples", _int(6, 9)),
    _snip("matmul", "matmul", _matmul_args),
    _snip("factorial", "factorial", _int(1, 10)),
    _snip("fib", "fib", _int(2, 8)),
    _snip("bst_sort", "bst_sort", _ints(0, 50, 3, 8)),
    _snip("tree_depth", "tree_depth", _tree),
    _snip("tree_sum", "tree_sum", _tree),
    _snip(
        "permutations",
        "permutations",
        _choice("[1, 2]", "[1, 2, 3]", "[3, 1, 2]", "['a', 'b', 'c']", "[7, 8, 9, 6]", "'abc'"),
    ),
    _snip("subsets", "subsets", _distinct(1, 9, 1, 4)),
    _snip("hanoi", "hanoi_moves", _int(1, 4)),
    _snip("binary_search", "binary_search", _sorted_and_target),
    _snip("deep_flatten", "deep_flatten", _nested),
    _snip("merge_sort", "merge_sort", _ints(0, 40, 2, 7)),
    _snip(
        "determinant",
        "determinant",
        _square_matrix,
        _choice("determinant([[1, 2], [3]])", "determinant([[4, 5], []])"),
    ),
    _snip("count_paths", "count_paths", _dag),
    _snip("queens", "queens", _choice("3", "4")),
    _snip(
        "bfs", "bfs_order", _graph, _choice("bfs_order({1: [2, 3], 2: [4]}, 1)", "bfs_order({}, 0)")
    ),
    _snip("safe_ratios", "safe_ratios", _pairs(0, 5, 2, 5)),
    _snip(
        "parse_all",
        "parse_all",
        _choice("['1', '22', 'x3', '-4']", "['7', 'seven', ' 8 ']", "['-', '10', '2a', '0']"),
        _choice("parse_int('4x')", "parse_all(['1']) + (parse_int('one'),)"),
    ),
    _snip("cleanup_log", "cleanup_log", _ints(0, 6, 2, 5)),
    _snip(
        "lookup_many",
        "lookup_many",
        _join(_str_dict(2, 4), _words(_WORDS[:8], 2, 4)),
        _choice("checked_get({'a': 1}, 'zz')", "checked_get({}, 3)"),
    ),
    _snip(
        "withdrawals",
        "run_withdrawals",
        _join(_int(5, 30), _ints(1, 15, 2, 6)),
        _choice("Account(5).withdraw(9)", "run_withdrawals(3, [1]) and Account(0).withdraw(1)"),
    ),
    _snip(
        "settings",
        "load_settings",
        _settings_args,
        _choice("read_setting({'a': '1'}, 'b')", "read_setting({'a': 'one'}, 'a')"),
    ),
    _snip("pick_double", "pick_doubles", _join(_ints(0, 9, 2, 5), _ints(-2, 6, 2, 4))),
    _snip(
        "validate",
        "validate_table",
        _matrix(2, 4, 1, 3, 0, 11),
        _choice("validate_row([1, 12])", "validate_table([[1]]) and validate_row([-1])"),
    ),
    _snip("guarded_pop", "drain", _ints(0, 9, 1, 5), _choice("guarded_pop([], [])")),
    _snip("inventory", "restock", _orders, _choice("Inventory().take('bolt', 1)")),
    _snip(
        "eval_rpn",
        "eval_rpn",
        _rpn,
        _choice("eval_rpn('4 0 /')", "eval_rpn('1 +')", "eval_rpn('2 3 * 0 /')"),
    ),
    _snip("countdown", "countdown_list", _int(1, 8)),
    _snip("walk_nested", "nested_total", _nested),
    _snip("sum_squares", "sum_squares", _ints(-4, 12, 3, 9)),
    _snip("label_items", "label_items", _join(_words(_WORDS, 1, 4), _int(0, 99))),
    _snip(
        "chunk_sums",
        "chunk_sums",
        _join(_ints(0, 9, 3, 9), _int(1, 4)),
        _choice("chunk_sums([1, 2, 3], 0)"),
    ),
    _snip("first_fibs", "first_fibs", _int(1, 10)),
    _snip("running_avg", "running_averages", _ints(0, 20, 2, 6)),
    _snip(
        "first_tokens",
        "first_tokens",
        _join(_choice("'a, b, c, d'", "'x,y,z'", "'one, two, three, four, five'"), _int(1, 3)),
    ),
    _snip("interleave", "interleaved", _join(_ints(0, 9, 1, 4), _ints(10, 19, 1, 4))),
    _snip("take_until", "take_until", _list_and_member(0, 9, 3, 8)),
    _snip("gen_pipeline", "gen_pipeline", _ints(0, 15, 0, 8)),
    _snip("vec_sum", "vec_sum", _pairs(-5, 5, 1, 5)),
    _snip(
        "balanced",
        "balanced",
        _choice("'(a[b]{c})'", "'(]'", "'((x)'", "'{[()()]}'", "'a(b)c)'", "''"),
    ),
    _snip("temperatures", "convert_temps", _ints(-10, 40, 1, 4)),
    _snip("shapes", "describe_shapes", _ints(1, 6, 1, 4)),
    _snip("money", "total_money", _ints(0, 9, 1, 5)),
    _snip(
        "versions",
        "sort_versions",
        _choice("['1.2', '1.10', '1.3']", "['2.0', '0.9.9', '2.0.1']", "['3', '1.1', '2.5']"),
        _choice("sort_versions(['1.2', 'x.1'])", "Version('1..2')"),
    ),
    _snip("countdown_pairs", "countdown_pairs", _int(1, 4)),
    _snip("linked_list", "linked_roundtrip", _ints(0, 9, 1, 6)),
    _snip("animals", "chorus", _words(_WORDS, 1, 4)),
    _snip("traffic", "light_cycle", _int(1, 7)),
    _snip(
        "ratios",
        "ratio_report",
        _pairs(1, 9, 1, 4),
        _choice("Ratio(1, 0)", "ratio_report([(1, 2), (3, 0)])"),
    ),
    _snip("recorder", "recorded_sum", _ints(0, 9, 1, 5)),
    _snip("suppress", "tolerant_inverse", _ints(-2, 4, 2, 6)),
    _snip(
        "sections",
        "sections",
        _join(_choice("['a', 'b']", "['x', 'y', 'z']", "['p']"), _choice("'a'", "'y'", "'q'")),
    ),
    _snip("tag_builder", "render_tags", _ints(0, 9, 1, 3)),
    _snip("sort_words", "sort_words", _words(_WORDS, 2, 6)),
    _snip("map_filter", "map_filter", _ints(0, 20, 2, 8)),
    _snip("oldest", "oldest", _records(1, 5), _choice("oldest([])")),
    _snip("rank_players", "rank_players", _records(2, 6)),
    _snip("counter", "counter_run", _join(_int(1, 5), _int(1, 5))),
    _snip("adders", "apply_adders", _join(_ints(0, 9, 1, 4), _int(-5, 5))),
    _snip("running_max", "running_max", _ints(-5, 9, 2, 7)),
    _snip("memo_ways", "ways", _int(1, 12)),
    _snip("count_calls", "sum_of_squares", _ints(-4, 9, 1, 6)),
    _snip("repeat", "bump", _int(1, 9)),
    _snip("logged", "logged_pipeline", _ints(0, 9, 1, 5)),
    _snip("observe", "observe", _ints(0, 9, 1, 5)),
    _snip("levels", "levels_run", _ints(0, 5, 1, 5)),
    _snip(
        "caesar",
        "caesar",
        _join(_choice("'Hello, World'", "'abc xyz'", "'Zebra!'", "'python 3'"), _int(1, 25)),
    ),
    _snip("palindromes", "palindromes", _words(_PHRASES, 1, 3)),
    _snip("title_case", "title_case", _word(_SENTENCES)),
    _snip("rle", "rle", _choice("'aaabccdddd'", "'abc'", "''", "'zzzzzy'", "'mississippi'")),
    _snip("score_table", "score_table", _score_rows),
    _snip("vowels", "vowel_count", _word(_SENTENCES)),
    _snip("anagrams", "anagram_groups", _words(_ANAGRAMS, 3, 7)),
    _snip(
        "parse_pairs",
        "parse_pairs",
        _pair_text,
        _choice("parse_pairs('a=1;b')", "parse_pairs('x = 1; y = two')"),
    ),
    _snip("word_freq", "word_freq", _word(_SENTENCES)),
    _snip("wrap_words", "wrap_words", _join(_word(_SENTENCES), _int(6, 16))),
    _snip("normalize_codes", "normalize_codes", _codes),
    _snip("histogram_bars", "histogram_bars", _ints(0, 6, 1, 4), _choice("histogram_bars([])")),
    _snip("describe_pairs", "describe_pairs", _str_dict(1, 4)),
    _snip("set_ops", "set_ops", _join(_ints(0, 9, 2, 6), _ints(0, 9, 2, 6))),
    _snip("merge_counts", "merge_counts", _join(_str_dict(1, 3), _str_dict(1, 3))),
    _snip("dict_stats", "dict_stats", _str_dict(1, 5)),
    _snip(
        "list_ops",
        "list_ops",
        _join(_ints(0, 9, 1, 5), _int(0, 9)),
        _choice("position_of([1, 2, 3], 7)", "list_ops([4], 4) and position_of((), 0)"),
    ),
    _snip("tuple_stats", "tuple_stats", _ints(0, 5, 1, 7)),
    _snip(
        "unpack_ends",
        "unpack_ends",
        _ints(0, 20, 2, 7),
        _choice("unpack_ends([4])", "unpack_ends([])"),
    ),
    _snip("weighted_sum", "weighted_sum", _weighted_args),
    _snip("dot", "dot", _join(_ints(-3, 5, 2, 5), _ints(-3, 5, 2, 5))),
    _snip("two_sum", "two_sum", _join(_ints(0, 9, 3, 8), _int(3, 15))),
    _snip("swap_pairs", "swap_pairs", _pairs(0, 9, 0, 4)),
    _snip("bounded_sum", "bounded_sum", _join(_ints(-20, 50, 2, 6), _int(3, 20))),
)


# --------------------------------------------------------------------------------------
# Program composition.
# --------------------------------------------------------------------------------------

_LABELS = ("alpha", "beta", "gamma", "trial", "demo", "check")
_SNIPPET_COUNTS = (1, 2, 3, 4)
_SNIPPET_WEIGHTS = (35, 30, 22, 13)
_FAIL_PERIOD = 12  # one program in twelve (about 8%) ends with an uncaught exception
_FAIL_OFFSET = 7


def _positional_only(args: str) -> bool:
    """Whether ``args`` can be packed into a tuple literal (no keywords, no stars)."""
    call = ast.parse(f"f({args})", mode="eval").body
    assert isinstance(call, ast.Call)
    return not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)


def _call(snippet: _Snippet, rng: random.Random) -> str:
    return f"{snippet.call}({snippet.args(rng)})"


def _driver_statement(
    idx: int, snippet: _Snippet, rng: random.Random, has_label: bool
) -> list[str]:
    """Module-level statements that call one snippet (none of them raises)."""
    args = snippet.args(rng)
    call = f"{snippet.call}({args})"
    style = rng.randrange(9)
    if style == 1:
        return [f"result_{idx} = {call}", f'print("{snippet.call}:", result_{idx})']
    if style == 2 and _positional_only(args):
        return [f"args_{idx} = ({args},)", f"print({snippet.call}(*args_{idx}))"]
    other = snippet.args(rng) if style == 3 else ""
    if style == 3 and _positional_only(args) and _positional_only(other):
        return [
            f"for args in [({args},), ({other},)]:",
            f"    print({snippet.call}(*args))",
        ]
    if style == 4:
        return [f"results.append({call})"]
    if style == 5:
        return [
            "count = 0",
            "while count < 2:",
            f"    value = {call}",
            "    count += 1",
            "print(count, value)",
        ]
    if style == 6:
        guarded = call
        if snippet.bad is not None and rng.random() < 0.6:
            guarded = snippet.bad(rng)
        return [
            "try:",
            f"    print({guarded})",
            "except Exception as error:",
            '    print("caught", type(error).__name__)',
        ]
    if style == 7 and '"' not in call and "\\" not in call:
        label = "{run_label}" if has_label else snippet.call
        return [f'print(f"{label}: {{{call}!r}}")']
    if style == 8:
        return [
            f"value = {call}",
            "if value:",
            '    print("truthy", value)',
            "else:",
            '    print("falsy", value)',
        ]
    return [f"print({call})"]


def _script_driver(
    rng: random.Random, chosen: list[_Snippet], bad: str | None
) -> tuple[list[str], list[str]]:
    """Returns (module-level preamble, driver lines) for a script-mode program."""
    head: list[str] = []
    has_label = rng.random() < 0.5
    if has_label:
        head.append(f'run_label = "{rng.choice(_LABELS)}"')
    if rng.random() < 0.35:
        head.append(f"LIMIT = {rng.randint(2, 5)}")
    body: list[str] = []
    if has_label and rng.random() < 0.5:
        body.append('print("run", run_label)')
    if any(line.startswith("LIMIT") for line in head):
        body += [
            "checksum = 0",
            "for n in range(LIMIT):",
            "    if n == 3:",
            "        continue",
            "    checksum += n * n",
            'print("checksum", checksum)',
        ]
    queue = list(enumerate(chosen, 1))
    if len(queue) >= 2 and rng.random() < 0.3:
        (_, first), (_, second) = queue[:2]
        queue = queue[2:]
        body.append(f"print({_call(first, rng)}, {_call(second, rng)})")
    for idx, snippet in queue:
        body += _driver_statement(idx, snippet, rng, has_label)
    if any(line.startswith("results.append") for line in body):
        head.append("results = []")
        body += ["for position, item in enumerate(results):", "    print(position, item)"]
    if bad is not None:
        form = rng.randrange(3)
        body.append((f"print({bad})", bad, f"outcome = {bad}")[form])
    if rng.random() < 0.25:
        body = ['if __name__ == "__main__":'] + ["    " + line for line in body]
    return head, body


def _entry_driver(
    rng: random.Random, chosen: list[_Snippet], bad: str | None
) -> tuple[list[str], list[str], str]:
    """Returns (module-level preamble, extra module code, entry expression)."""
    head: list[str] = []
    if rng.random() < 0.3:
        head.append(f'run_label = "{rng.choice(_LABELS)}"')
    lines: list[str] = []
    if len(chosen) == 1 and rng.random() < 0.6:
        entry = bad if bad is not None else _call(chosen[0], rng)
        if rng.random() < 0.3:
            lines += ['if __name__ == "__main__":', f"    print({_call(chosen[0], rng)})"]
        return head, lines, entry
    calls = [_call(s, rng) for s in chosen]
    form = rng.randrange(3)
    if form == 0:
        lines += ["def main():", "    results = []"]
        lines += [f"    results.append({c})" for c in calls]
        if bad is not None:
            lines.append(f"    results.append({bad})")
        lines.append("    return results")
        entry = "main()"
    elif form == 1:
        lines += [
            "def main(times):",
            "    out = []",
            "    for round_no in range(times):",
            f"        out.append({calls[0]})",
        ]
        lines += [f"    out.append({c})" for c in calls[1:]]
        if bad is not None:
            lines.append(f"    out.append({bad})")
        lines.append("    return out")
        entry = f"main({rng.randint(1, 3)})"
    else:
        lines.append("def main():")
        lines += [f"    first_{i} = {c}" for i, c in enumerate(calls[2:])]
        if bad is not None:
            lines.append(f"    checked = {bad}")
        lines.append(f"    return {' + '.join(f'[{c}]' for c in calls[:2])}")
        entry = "main()"
    if rng.random() < 0.3:
        lines += ["", "", 'if __name__ == "__main__":', "    print(main())"]
    return head, lines, entry


def corpus(n: int = 240, seed: int = 0) -> list[CorpusProgram]:
    """Return ``n`` programs; the same ``(n, seed)`` always gives the same list."""
    rng = random.Random(seed)
    order = list(range(len(_SNIPPETS)))
    rng.shuffle(order)
    bad_order = [i for i in order if _SNIPPETS[i].bad is not None]
    programs: list[CorpusProgram] = []
    failures = 0
    for i in range(n):
        failing = i % _FAIL_PERIOD == _FAIL_OFFSET
        if failing:
            primary_index = bad_order[failures % len(bad_order)]
            entry_mode = failures % 2 == 1
            failures += 1
        else:
            primary_index = order[i % len(order)]
            entry_mode = rng.random() < 1 / 3
        k = rng.choices(_SNIPPET_COUNTS, weights=_SNIPPET_WEIGHTS)[0]
        others = rng.sample([j for j in range(len(_SNIPPETS)) if j != primary_index], k - 1)
        chosen = [_SNIPPETS[primary_index]] + [_SNIPPETS[j] for j in others]
        primary = chosen[0]
        bad = primary.bad(rng) if failing and primary.bad is not None else None

        name = f"p{i:03d}_{primary.key}"
        if len(chosen) > 1:
            name += f"_{chosen[1].key}"

        blocks: list[str] = []
        if rng.random() < 0.3:
            blocks.append(f"# corpus program {name}\n")
        blocks += [s.source for s in chosen]
        entry: str | None = None
        if entry_mode:
            head, body, entry = _entry_driver(rng, chosen, bad)
        else:
            head, body = _script_driver(rng, chosen, bad)
        if head:
            blocks.insert(1 if blocks[0].startswith("#") else 0, "\n".join(head) + "\n")
        if body:
            blocks.append("\n".join(body) + "\n")
        programs.append(CorpusProgram(name=name, source="\n\n".join(blocks), entry=entry))
    return programs
