"""A deterministic corpus of small, self-contained Python programs.

The corpus exists for two jobs only:

* checking a tracer's step semantics (line, call, return and exception events, the state
  tree it builds) against a real debugger (the standard library's ``bdb``), and
* benchmarking how fast programs can be traced.

It is never training data: nothing here is meant to be fed to a model, and no program is
taken from CruxEval or copied from another project. Every program is composed from a
library of hand-written snippets (small top-level functions, or a class plus a function
using it) with deterministic argument generators. A program picks one to four snippets and
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
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

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
    key: str  # short, file-name safe; used in program names
    source: str  # module-level code defining ``call`` (and helpers)
    call: str  # name of the function the driver calls
    args: ArgGen  # rng -> argument list text, e.g. "[3, 1, 2], 4"
    bad: ArgGen | None = None  # rng -> a full call expression that raises (uncaught)


def _snip(key: str, call: str, source: str, args: ArgGen, bad: ArgGen | None = None) -> _Snippet:
    return _Snippet(key, textwrap.dedent(source).strip("\n") + "\n", call, args, bad)


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
# The snippet library. Top-level names are unique across snippets. Several snippets share
# identical source lines on purpose (``    return result``, ``    for x in xs:``, ...).
# --------------------------------------------------------------------------------------

_SNIPPETS: tuple[_Snippet, ...] = (
    # ---- loops --------------------------------------------------------------------
    _snip(
        "sum_evens",
        "sum_evens",
        """
        def sum_evens(xs):
            result = 0
            for x in xs:
                if x % 2:
                    continue
                result += x
            return result
        """,
        _ints(-5, 20, 3, 9),
    ),
    _snip(
        "first_negative",
        "first_negative",
        """
        def first_negative(xs):
            for i, x in enumerate(xs):
                if x < 0:
                    break
            else:
                return -1
            return i
        """,
        _ints(-3, 9, 3, 8),
    ),
    _snip(
        "collatz",
        "collatz_steps",
        """
        def collatz_steps(n):
            steps = 0
            while n != 1:
                if n % 2 == 0:
                    n //= 2
                else:
                    n = 3 * n + 1
                steps += 1
            return steps
        """,
        _int(2, 12),
    ),
    _snip(
        "prime_flags",
        "prime_flags",
        """
        def is_prime(n):
            if n < 2:
                return False
            i = 2
            while i * i <= n:
                if n % i == 0:
                    return False
                i += 1
            return True


        def prime_flags(xs):
            result = []
            for x in xs:
                result.append(is_prime(x))
            return result
        """,
        _ints(0, 60, 3, 7),
    ),
    _snip(
        "primes_below",
        "primes_below",
        """
        def primes_below(n):
            found = []
            for k in range(2, n):
                for d in found:
                    if k % d == 0:
                        break
                else:
                    found.append(k)
            return found
        """,
        _int(5, 30),
    ),
    _snip(
        "linear_search",
        "linear_search",
        """
        def linear_search(xs, target):
            i = 0
            while i < len(xs):
                if xs[i] == target:
                    return i
                i += 1
            return -1
        """,
        _list_and_member(0, 20, 3, 9),
    ),
    _snip(
        "bubble_sort",
        "bubble_sort",
        """
        def bubble_sort(xs):
            xs = list(xs)
            n = len(xs)
            for i in range(n):
                swapped = False
                for j in range(n - 1 - i):
                    if xs[j] > xs[j + 1]:
                        xs[j], xs[j + 1] = xs[j + 1], xs[j]
                        swapped = True
                if not swapped:
                    break
            return xs
        """,
        _ints(0, 30, 3, 7),
    ),
    _snip(
        "insertion_sort",
        "insertion_sort",
        """
        def insertion_sort(xs):
            result = list(xs)
            for i in range(1, len(result)):
                key = result[i]
                j = i - 1
                while j >= 0 and result[j] > key:
                    result[j + 1] = result[j]
                    j -= 1
                result[j + 1] = key
            return result
        """,
        _ints(-9, 30, 3, 8),
    ),
    _snip(
        "gcd_lcm",
        "lcm_all",
        """
        def gcd_pair(a, b):
            while b:
                a, b = b, a % b
            return a


        def lcm_all(xs):
            result = 1
            for x in xs:
                result = result * x // gcd_pair(result, x)
            return result
        """,
        _ints(1, 12, 2, 5),
    ),
    _snip(
        "digit_sum",
        "digit_sum",
        """
        def digit_sum(n):
            total = 0
            while n > 0:
                n, d = divmod(n, 10)
                total += d
            return total
        """,
        _int(100, 99999),
    ),
    _snip(
        "skip_multiples",
        "skip_multiples",
        """
        def skip_multiples(limit, k):
            found = []
            n = 0
            while True:
                n += 1
                if n > limit:
                    break
                if n % k == 0:
                    continue
                found.append(n)
            return found
        """,
        _join(_int(4, 12), _int(2, 4)),
    ),
    _snip(
        "find_divisor",
        "find_divisor",
        """
        def find_divisor(n, start):
            d = start
            while d < n:
                if n % d == 0:
                    break
                d += 1
            else:
                return None
            return d
        """,
        _join(_int(10, 40), _int(2, 5)),
    ),
    _snip(
        "roman",
        "to_roman",
        """
        def to_roman(n):
            table = [(50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
            out = ""
            for value, letters in table:
                while n >= value:
                    out += letters
                    n -= value
            return out
        """,
        _int(1, 60),
    ),
    _snip(
        "kadane",
        "max_subarray",
        """
        def max_subarray(xs):
            best = current = xs[0]
            for x in xs[1:]:
                current = max(x, current + x)
                best = max(best, current)
            return best
        """,
        _ints(-8, 8, 3, 10),
        _choice("max_subarray([])"),
    ),
    _snip(
        "prefix_sums",
        "prefix_sums",
        """
        def prefix_sums(xs):
            result = [0]
            for x in xs:
                result.append(result[-1] + x)
            return result
        """,
        _ints(-5, 9, 3, 8),
    ),
    _snip(
        "sieve",
        "sieve",
        """
        def sieve(n):
            flags = [True] * (n + 1)
            flags[0] = flags[1] = False
            p = 2
            while p * p <= n:
                if flags[p]:
                    for multiple in range(p * p, n + 1, p):
                        flags[multiple] = False
                p += 1
            return [i for i, ok in enumerate(flags) if ok]
        """,
        _int(10, 40),
        _choice("sieve(0)"),
    ),
    _snip(
        "coin_ways",
        "coin_ways",
        """
        def coin_ways(amount, coins):
            ways = [1] + [0] * amount
            for coin in coins:
                for total in range(coin, amount + 1):
                    ways[total] += ways[total - coin]
            return ways[amount]
        """,
        _join(_int(3, 12), _choice("[1, 2, 5]", "[2, 3]", "[1, 3, 4]", "(5, 1)")),
    ),
    _snip(
        "bit_count",
        "bit_table",
        """
        def bit_count(n):
            count = 0
            while n:
                n &= n - 1
                count += 1
            return count


        def bit_table(xs):
            return {x: bit_count(x) for x in xs}
        """,
        _ints(0, 255, 2, 6),
    ),
    # ---- arithmetic, floats, early returns -------------------------------------------
    _snip(
        "to_base",
        "to_base",
        """
        def to_base(n, base):
            digits = "0123456789abcdef"
            if n == 0:
                return "0"
            out = []
            while n > 0:
                n, r = divmod(n, base)
                out.append(digits[r])
            return "".join(reversed(out))
        """,
        _join(_int(0, 500), _int(2, 16)),
        _choice("to_base(10, 0)", "to_base(37, 0)"),
    ),
    _snip(
        "newton_sqrt",
        "newton_sqrt",
        """
        def newton_sqrt(value, steps):
            guess = value / 2 or 1.0
            for _ in range(steps):
                guess = (guess + value / guess) / 2
            return round(guess, 6)
        """,
        _join(_int(2, 50), _int(3, 6)),
    ),
    _snip(
        "classify",
        "classify_all",
        """
        def classify(n):
            if n < 0:
                return "negative"
            if n == 0:
                return "zero"
            if n % 2 == 0:
                return "even"
            if n > 100:
                return "big"
            return "odd"


        def classify_all(xs):
            return [classify(x) for x in xs]
        """,
        _ints(-5, 120, 3, 7),
    ),
    _snip(
        "grade",
        "grade_report",
        """
        def grade(score):
            for limit, letter in ((90, "A"), (80, "B"), (70, "C")):
                if score >= limit:
                    return letter
            return "F"


        def grade_report(scores):
            letters = [grade(s) for s in scores]
            return "".join(letters), letters.count("A")
        """,
        _ints(50, 100, 3, 7),
    ),
    _snip(
        "average",
        "average",
        """
        def average(xs):
            total = 0
            for x in xs:
                total += x
            return total / len(xs)
        """,
        _ints(0, 20, 2, 6),
        _choice("average([])"),
    ),
    _snip(
        "chain_calls",
        "compose_all",
        """
        def inc(x):
            return x + 1


        def dbl(x):
            return x * 2


        def sq(x):
            return x * x


        def compose_all(xs):
            result = []
            for x in xs:
                result.append(sq(dbl(inc(x))) - inc(x))
            return result
        """,
        _ints(-3, 6, 2, 5),
    ),
    _snip(
        "parity",
        "parity_words",
        """
        def is_even(n):
            if n == 0:
                return True
            return is_odd(n - 1)


        def is_odd(n):
            if n == 0:
                return False
            return is_even(n - 1)


        def parity_words(xs):
            return ["even" if is_even(x) else "odd" for x in xs]
        """,
        _ints(0, 9, 2, 5),
    ),
    # ---- comprehensions ---------------------------------------------------------------
    _snip(
        "transpose",
        "transpose",
        """
        def transpose(matrix):
            return [list(row) for row in zip(*matrix)]
        """,
        _matrix(2, 3, 2, 4),
    ),
    _snip(
        "flatten",
        "flatten",
        """
        def flatten(rows):
            return [x for row in rows for x in row if x is not None]
        """,
        _matrix(2, 4, 1, 3),
    ),
    _snip(
        "char_hist",
        "char_hist",
        """
        def char_hist(text):
            return {c: text.count(c) for c in sorted(set(text)) if c != " "}
        """,
        _word(),
    ),
    _snip(
        "mod_classes",
        "mod_classes",
        """
        def mod_classes(xs, k):
            residues = {x % k for x in xs}
            return sorted(residues), len(residues) == k
        """,
        _join(_ints(0, 40, 3, 8), _int(2, 6)),
        _choice("mod_classes([1, 2, 3], 0)"),
    ),
    _snip(
        "grid_pairs",
        "grid_pairs",
        """
        def grid_pairs(n):
            return [(r, c) for r in range(n) for c in range(n) if r < c]
        """,
        _int(2, 5),
    ),
    _snip(
        "invert_dict",
        "invert_dict",
        """
        def invert_dict(d):
            inverted = {value: key for key, value in d.items()}
            return dict(sorted(inverted.items()))
        """,
        _str_dict(2, 5),
    ),
    _snip(
        "identity",
        "identity",
        """
        def identity(n):
            return [[1 if i == j else 0 for j in range(n)] for i in range(n)]
        """,
        _int(1, 4),
    ),
    _snip(
        "triples",
        "triples",
        """
        def triples(n):
            return [
                (a, b, c)
                for a in range(1, n)
                for b in range(a, n)
                for c in range(b, n)
                if a * a + b * b == c * c
            ]
        """,
        _int(6, 9),
    ),
    _snip(
        "matmul",
        "matmul",
        """
        def matmul(a, b):
            cols = list(zip(*b))
            return [[sum(x * y for x, y in zip(row, col)) for col in cols] for row in a]
        """,
        _matmul_args,
    ),
    # ---- recursion --------------------------------------------------------------------
    _snip(
        "factorial",
        "factorial",
        """
        def factorial(n):
            if n <= 1:
                return 1
            return n * factorial(n - 1)
        """,
        _int(1, 10),
    ),
    _snip(
        "fib",
        "fib",
        """
        def fib(n):
            if n < 2:
                return n
            return fib(n - 1) + fib(n - 2)
        """,
        _int(2, 8),
    ),
    _snip(
        "bst_sort",
        "bst_sort",
        """
        class TreeNode:
            def __init__(self, value):
                self.value = value
                self.left = None
                self.right = None


        def bst_insert(node, value):
            if node is None:
                return TreeNode(value)
            if value < node.value:
                node.left = bst_insert(node.left, value)
            else:
                node.right = bst_insert(node.right, value)
            return node


        def bst_inorder(node):
            if node is None:
                return []
            return bst_inorder(node.left) + [node.value] + bst_inorder(node.right)


        def bst_sort(xs):
            root = None
            for x in xs:
                root = bst_insert(root, x)
            return bst_inorder(root)
        """,
        _ints(0, 50, 3, 8),
    ),
    _snip(
        "tree_depth",
        "tree_depth",
        """
        def tree_depth(node):
            if node is None:
                return 0
            value, left, right = node
            return 1 + max(tree_depth(left), tree_depth(right))
        """,
        _tree,
    ),
    _snip(
        "tree_sum",
        "tree_sum",
        """
        def tree_sum(node):
            if node is None:
                return 0
            value, left, right = node
            return value + tree_sum(left) + tree_sum(right)
        """,
        _tree,
    ),
    _snip(
        "permutations",
        "permutations",
        """
        def permutations(items):
            if len(items) <= 1:
                return [list(items)]
            result = []
            for i in range(len(items)):
                rest = items[:i] + items[i + 1:]
                for p in permutations(rest):
                    result.append([items[i]] + p)
            return result
        """,
        _choice("[1, 2]", "[1, 2, 3]", "[3, 1, 2]", "['a', 'b', 'c']", "[7, 8, 9, 6]", "'abc'"),
    ),
    _snip(
        "subsets",
        "subsets",
        """
        def subsets(items):
            if not items:
                return [[]]
            rest = subsets(items[1:])
            return rest + [[items[0]] + s for s in rest]
        """,
        _distinct(1, 9, 1, 4),
    ),
    _snip(
        "hanoi",
        "hanoi_moves",
        """
        def hanoi(n, source, target, spare, moves):
            if n == 0:
                return
            hanoi(n - 1, source, spare, target, moves)
            moves.append((source, target))
            hanoi(n - 1, spare, target, source, moves)


        def hanoi_moves(n):
            moves = []
            hanoi(n, "A", "C", "B", moves)
            return len(moves), moves[:3]
        """,
        _int(1, 4),
    ),
    _snip(
        "binary_search",
        "binary_search",
        """
        def binary_search(xs, target, lo=0, hi=None):
            if hi is None:
                hi = len(xs) - 1
            if lo > hi:
                return -1
            mid = (lo + hi) // 2
            if xs[mid] == target:
                return mid
            if xs[mid] < target:
                return binary_search(xs, target, mid + 1, hi)
            return binary_search(xs, target, lo, mid - 1)
        """,
        _sorted_and_target,
    ),
    _snip(
        "deep_flatten",
        "deep_flatten",
        """
        def deep_flatten(value):
            if not isinstance(value, list):
                return [value]
            result = []
            for item in value:
                result.extend(deep_flatten(item))
            return result
        """,
        _nested,
    ),
    _snip(
        "merge_sort",
        "merge_sort",
        """
        def merge(left, right):
            result = []
            i = j = 0
            while i < len(left) and j < len(right):
                if left[i] <= right[j]:
                    result.append(left[i])
                    i += 1
                else:
                    result.append(right[j])
                    j += 1
            return result + left[i:] + right[j:]


        def merge_sort(xs):
            if len(xs) <= 1:
                return xs
            mid = len(xs) // 2
            return merge(merge_sort(xs[:mid]), merge_sort(xs[mid:]))
        """,
        _ints(0, 40, 2, 7),
    ),
    _snip(
        "determinant",
        "determinant",
        """
        def determinant(m):
            if len(m) == 1:
                return m[0][0]
            total = 0
            for col in range(len(m)):
                minor = [row[:col] + row[col + 1:] for row in m[1:]]
                sign = -1 if col % 2 else 1
                total += sign * m[0][col] * determinant(minor)
            return total
        """,
        _square_matrix,
        _choice("determinant([[1, 2], [3]])", "determinant([[4, 5], []])"),
    ),
    _snip(
        "count_paths",
        "count_paths",
        """
        def count_paths(graph, node, target):
            if node == target:
                return 1
            total = 0
            for nxt in graph.get(node, []):
                total += count_paths(graph, nxt, target)
            return total
        """,
        _dag,
    ),
    _snip(
        "queens",
        "queens",
        """
        def queens(n):
            solutions = []

            def place(row, cols):
                if row == n:
                    solutions.append(list(cols))
                    return
                for col in range(n):
                    if all(col != c and abs(col - c) != row - r for r, c in enumerate(cols)):
                        cols.append(col)
                        place(row + 1, cols)
                        cols.pop()

            place(0, [])
            return len(solutions), solutions[:1]
        """,
        _choice("3", "4"),
    ),
    _snip(
        "bfs",
        "bfs_order",
        """
        def bfs_order(graph, start):
            seen = {start}
            queue = [start]
            order = []
            while queue:
                node = queue.pop(0)
                order.append(node)
                for nxt in graph[node]:
                    if nxt not in seen:
                        seen.add(nxt)
                        queue.append(nxt)
            return order
        """,
        _graph,
        _choice("bfs_order({1: [2, 3], 2: [4]}, 1)", "bfs_order({}, 0)"),
    ),
    # ---- exceptions -------------------------------------------------------------------
    _snip(
        "safe_ratios",
        "safe_ratios",
        """
        def safe_ratios(pairs):
            result = []
            for a, b in pairs:
                try:
                    result.append(round(a / b, 3))
                except ZeroDivisionError:
                    result.append(None)
            return result
        """,
        _pairs(0, 5, 2, 5),
    ),
    _snip(
        "parse_all",
        "parse_all",
        """
        def parse_int(text):
            if not text.strip().lstrip("-").isdigit():
                raise ValueError("bad number: " + text)
            return int(text)


        def parse_all(items):
            good = []
            bad = 0
            for item in items:
                try:
                    good.append(parse_int(item))
                except ValueError:
                    bad += 1
            return good, bad
        """,
        _choice("['1', '22', 'x3', '-4']", "['7', 'seven', ' 8 ']", "['-', '10', '2a', '0']"),
        _choice("parse_int('4x')", "parse_all(['1']) + (parse_int('one'),)"),
    ),
    _snip(
        "cleanup_log",
        "cleanup_log",
        """
        def cleanup_log(xs):
            log = []
            try:
                for x in xs:
                    log.append(60 // x)
            except ZeroDivisionError:
                log.append("zero")
            finally:
                log.append("done")
            return log
        """,
        _ints(0, 6, 2, 5),
    ),
    _snip(
        "lookup_many",
        "lookup_many",
        """
        MISSING_KEYS = []


        def checked_get(d, key):
            try:
                return d[key]
            except KeyError:
                MISSING_KEYS.append(key)
                raise


        def lookup_many(d, keys):
            out = []
            for k in keys:
                try:
                    out.append(checked_get(d, k))
                except KeyError:
                    out.append(None)
            return out, len(MISSING_KEYS)
        """,
        _join(_str_dict(2, 4), _words(_WORDS[:8], 2, 4)),
        _choice("checked_get({'a': 1}, 'zz')", "checked_get({}, 3)"),
    ),
    _snip(
        "withdrawals",
        "run_withdrawals",
        """
        class InsufficientFunds(Exception):
            def __init__(self, needed):
                super().__init__("need " + str(needed))
                self.needed = needed


        class Account:
            def __init__(self, balance):
                self.balance = balance

            def withdraw(self, amount):
                if amount > self.balance:
                    raise InsufficientFunds(amount - self.balance)
                self.balance -= amount
                return self.balance


        def run_withdrawals(start, amounts):
            acct = Account(start)
            failures = []
            for amount in amounts:
                try:
                    acct.withdraw(amount)
                except InsufficientFunds as exc:
                    failures.append(exc.needed)
            return acct.balance, failures
        """,
        _join(_int(5, 30), _ints(1, 15, 2, 6)),
        _choice("Account(5).withdraw(9)", "run_withdrawals(3, [1]) and Account(0).withdraw(1)"),
    ),
    _snip(
        "settings",
        "load_settings",
        """
        class ConfigError(Exception):
            pass


        def read_setting(settings, name):
            try:
                raw = settings[name]
            except KeyError as exc:
                raise ConfigError("no " + name) from exc
            return int(raw)


        def load_settings(settings, names):
            values = {}
            for name in names:
                try:
                    values[name] = read_setting(settings, name)
                except ConfigError:
                    values[name] = 0
                except ValueError:
                    values[name] = -1
            return values
        """,
        _settings_args,
        _choice("read_setting({'a': '1'}, 'b')", "read_setting({'a': 'one'}, 'a')"),
    ),
    _snip(
        "pick_double",
        "pick_doubles",
        """
        def pick_double(xs, i):
            try:
                value = xs[i]
            except IndexError:
                return "out of range"
            else:
                return value * 2


        def pick_doubles(xs, indices):
            return [pick_double(xs, i) for i in indices]
        """,
        _join(_ints(0, 9, 2, 5), _ints(-2, 6, 2, 4)),
    ),
    _snip(
        "validate",
        "validate_table",
        """
        class ValidationError(Exception):
            pass


        def check_range(x, lo, hi):
            if not lo <= x <= hi:
                raise ValidationError(f"{x} not in [{lo}, {hi}]")
            return x


        def validate_row(row):
            return [check_range(x, 0, 9) for x in row]


        def validate_table(rows):
            good = []
            errors = []
            for row in rows:
                try:
                    good.append(validate_row(row))
                except ValidationError as exc:
                    errors.append(str(exc))
            return len(good), errors
        """,
        _matrix(2, 4, 1, 3, 0, 11),
        _choice("validate_row([1, 12])", "validate_table([[1]]) and validate_row([-1])"),
    ),
    _snip(
        "guarded_pop",
        "drain",
        """
        def guarded_pop(stack, log):
            try:
                return stack.pop()
            finally:
                log.append(len(stack))


        def drain(xs):
            stack = list(xs)
            log = []
            values = []
            while stack:
                values.append(guarded_pop(stack, log))
            return values, log
        """,
        _ints(0, 9, 1, 5),
        _choice("guarded_pop([], [])"),
    ),
    _snip(
        "inventory",
        "restock",
        """
        class Inventory:
            def __init__(self):
                self.stock = {}

            def add(self, name, qty):
                self.stock[name] = self.stock.get(name, 0) + qty

            def take(self, name, qty):
                if self.stock[name] < qty:
                    raise ValueError("not enough " + name)
                self.stock[name] -= qty
                return self.stock[name]


        def restock(orders):
            inv = Inventory()
            for name, qty in orders:
                if qty > 0:
                    inv.add(name, qty)
                else:
                    try:
                        inv.take(name, -qty)
                    except (KeyError, ValueError):
                        inv.add("missed", 1)
            return sorted(inv.stock.items())
        """,
        _orders,
        _choice("Inventory().take('bolt', 1)"),
    ),
    _snip(
        "eval_rpn",
        "eval_rpn",
        """
        def eval_rpn(tokens):
            ops = {
                "+": lambda a, b: a + b,
                "-": lambda a, b: a - b,
                "*": lambda a, b: a * b,
                "/": lambda a, b: a // b,
            }
            stack = []
            for tok in tokens.split():
                if tok in ops:
                    b = stack.pop()
                    a = stack.pop()
                    stack.append(ops[tok](a, b))
                else:
                    stack.append(int(tok))
            return stack.pop()
        """,
        _rpn,
        _choice("eval_rpn('4 0 /')", "eval_rpn('1 +')", "eval_rpn('2 3 * 0 /')"),
    ),
    # ---- generators -------------------------------------------------------------------
    _snip(
        "countdown",
        "countdown_list",
        """
        def countdown(n):
            while n > 0:
                yield n
                n -= 1


        def countdown_list(n):
            return list(countdown(n))
        """,
        _int(1, 8),
    ),
    _snip(
        "walk_nested",
        "nested_total",
        """
        def walk_nested(items):
            for item in items:
                if isinstance(item, list):
                    yield from walk_nested(item)
                else:
                    yield item


        def nested_total(items):
            return sum(walk_nested(items))
        """,
        _nested,
    ),
    _snip(
        "sum_squares",
        "sum_squares",
        """
        def sum_squares(xs):
            return sum(x * x for x in xs if x % 3)
        """,
        _ints(-4, 12, 3, 9),
    ),
    _snip(
        "label_items",
        "label_items",
        """
        def id_maker(start):
            current = start
            while True:
                yield current
                current += 1


        def label_items(words, start):
            ids = id_maker(start)
            first = next(ids)
            labels = [str(first) + ":head"]
            for w in words:
                labels.append(str(next(ids)) + ":" + w)
            return labels
        """,
        _join(_words(_WORDS, 1, 4), _int(0, 99)),
    ),
    _snip(
        "chunk_sums",
        "chunk_sums",
        """
        def chunks(xs, size):
            for i in range(0, len(xs), size):
                yield xs[i:i + size]


        def chunk_sums(xs, size):
            return [sum(c) for c in chunks(xs, size)]
        """,
        _join(_ints(0, 9, 3, 9), _int(1, 4)),
        _choice("chunk_sums([1, 2, 3], 0)"),
    ),
    _snip(
        "first_fibs",
        "first_fibs",
        """
        def fib_gen():
            a, b = 0, 1
            while True:
                yield a
                a, b = b, a + b


        def first_fibs(n):
            gen = fib_gen()
            return [next(gen) for _ in range(n)]
        """,
        _int(1, 10),
    ),
    _snip(
        "running_avg",
        "running_averages",
        """
        def averager():
            total = 0
            count = 0
            average = None
            while True:
                value = yield average
                total += value
                count += 1
                average = total / count


        def running_averages(xs):
            gen = averager()
            next(gen)
            return [round(gen.send(x), 2) for x in xs]
        """,
        _ints(0, 20, 2, 6),
    ),
    _snip(
        "first_tokens",
        "first_tokens",
        """
        CLOSED_STREAMS = []


        def tokens(text):
            try:
                for part in text.split(","):
                    yield part.strip()
            finally:
                CLOSED_STREAMS.append(text)


        def first_tokens(text, k):
            gen = tokens(text)
            out = []
            for _ in range(k):
                out.append(next(gen))
            gen.close()
            return out, len(CLOSED_STREAMS)
        """,
        _join(_choice("'a, b, c, d'", "'x,y,z'", "'one, two, three, four, five'"), _int(1, 3)),
    ),
    _snip(
        "interleave",
        "interleaved",
        """
        def interleave(a, b):
            for x, y in zip(a, b):
                yield x
                yield y
            yield from a[len(b):]
            yield from b[len(a):]


        def interleaved(a, b):
            return list(interleave(a, b))
        """,
        _join(_ints(0, 9, 1, 4), _ints(10, 19, 1, 4)),
    ),
    _snip(
        "take_until",
        "take_until",
        """
        def numbers_until(xs, stop):
            for x in xs:
                if x == stop:
                    return
                yield x


        def take_until(xs, stop):
            gen = numbers_until(xs, stop)
            head = next(gen, None)
            rest = [y * 10 for y in gen]
            return head, rest
        """,
        _list_and_member(0, 9, 3, 8),
    ),
    _snip(
        "gen_pipeline",
        "gen_pipeline",
        """
        def gen_pipeline(xs):
            evens = (x for x in xs if x % 2 == 0)
            squares = (x * x for x in evens)
            return sum(squares), max((x for x in xs), default=0)
        """,
        _ints(0, 15, 0, 8),
    ),
    # ---- classes ----------------------------------------------------------------------
    _snip(
        "vec_sum",
        "vec_sum",
        """
        class Vec:
            def __init__(self, x, y):
                self.x = x
                self.y = y

            def __add__(self, other):
                return Vec(self.x + other.x, self.y + other.y)

            def __eq__(self, other):
                return (self.x, self.y) == (other.x, other.y)

            def __repr__(self):
                return f"Vec({self.x}, {self.y})"


        def vec_sum(pairs):
            total = Vec(0, 0)
            for x, y in pairs:
                total = total + Vec(x, y)
            return total, total == Vec(0, 0)
        """,
        _pairs(-5, 5, 1, 5),
    ),
    _snip(
        "balanced",
        "balanced",
        """
        class Stack:
            def __init__(self):
                self.items = []

            def push(self, item):
                self.items.append(item)

            def pop(self):
                return self.items.pop()

            def is_empty(self):
                return len(self) == 0

            def __len__(self):
                return len(self.items)


        def balanced(text):
            pairs = {")": "(", "]": "[", "}": "{"}
            stack = Stack()
            for ch in text:
                if ch in "([{":
                    stack.push(ch)
                elif ch in pairs:
                    if stack.is_empty() or stack.pop() != pairs[ch]:
                        return False
            return stack.is_empty()
        """,
        _choice("'(a[b]{c})'", "'(]'", "'((x)'", "'{[()()]}'", "'a(b)c)'", "''"),
    ),
    _snip(
        "temperatures",
        "convert_temps",
        """
        class Temperature:
            def __init__(self, celsius):
                self._celsius = celsius

            @property
            def fahrenheit(self):
                return self._celsius * 9 / 5 + 32

            @fahrenheit.setter
            def fahrenheit(self, value):
                self._celsius = (value - 32) * 5 / 9


        def convert_temps(values):
            out = []
            for v in values:
                t = Temperature(v)
                out.append(round(t.fahrenheit, 1))
            t.fahrenheit = 212
            out.append(round(t._celsius, 1))
            return out
        """,
        _ints(-10, 40, 1, 4),
    ),
    _snip(
        "shapes",
        "describe_shapes",
        """
        class Shape:
            def __init__(self, name):
                self.name = name

            def area(self):
                return 0

            def describe(self):
                return f"{self.name}: {self.area()}"


        class Rect(Shape):
            def __init__(self, w, h):
                super().__init__("rect")
                self.w = w
                self.h = h

            def area(self):
                return self.w * self.h


        class Square(Rect):
            def __init__(self, side):
                super().__init__(side, side)
                self.name = "square"


        def describe_shapes(sizes):
            shapes = [Square(s) if s % 2 else Rect(s, s + 1) for s in sizes]
            return [shape.describe() for shape in shapes]
        """,
        _ints(1, 6, 1, 4),
    ),
    _snip(
        "money",
        "total_money",
        """
        class Money:
            rate = 100

            def __init__(self, cents):
                self.cents = cents

            @classmethod
            def from_units(cls, units):
                return cls(units * cls.rate)

            @staticmethod
            def format_cents(cents):
                return f"{cents // 100}.{cents % 100:02d}"

            def __str__(self):
                return "$" + Money.format_cents(self.cents)


        def total_money(units_list):
            total = 0
            for units in units_list:
                total += Money.from_units(units).cents
            return str(Money(total + 7))
        """,
        _ints(0, 9, 1, 5),
    ),
    _snip(
        "versions",
        "sort_versions",
        """
        class Version:
            def __init__(self, text):
                self.parts = tuple(int(p) for p in text.split("."))

            def __lt__(self, other):
                return self.parts < other.parts

            def __repr__(self):
                return "v" + ".".join(str(p) for p in self.parts)


        def sort_versions(texts):
            return sorted(Version(t) for t in texts)
        """,
        _choice("['1.2', '1.10', '1.3']", "['2.0', '0.9.9', '2.0.1']", "['3', '1.1', '2.5']"),
        _choice("sort_versions(['1.2', 'x.1'])", "Version('1..2')"),
    ),
    _snip(
        "countdown_pairs",
        "countdown_pairs",
        """
        class Countdown:
            def __init__(self, start):
                self.start = start

            def __iter__(self):
                n = self.start
                while n > 0:
                    yield n
                    n -= 1


        def countdown_pairs(n):
            return [(a, b) for a in Countdown(n) for b in Countdown(a) if a != b]
        """,
        _int(1, 4),
    ),
    _snip(
        "linked_list",
        "linked_roundtrip",
        """
        class LinkedList:
            def __init__(self):
                self.head = None
                self.size = 0

            def push(self, value):
                self.head = (value, self.head)
                self.size += 1

            def __iter__(self):
                node = self.head
                while node is not None:
                    value, node = node
                    yield value

            def __len__(self):
                return self.size


        def linked_roundtrip(xs):
            chain = LinkedList()
            for x in xs:
                chain.push(x)
            return list(chain), len(chain)
        """,
        _ints(0, 9, 1, 6),
    ),
    _snip(
        "animals",
        "chorus",
        """
        class Animal:
            sound = "..."

            def __init__(self, name):
                self.name = name

            def speak(self):
                return f"{self.name} says {self.sound}"


        class Dog(Animal):
            sound = "woof"


        class Puppy(Dog):
            def speak(self):
                base = super().speak()
                return base + "!"


        class Cat(Animal):
            sound = "meow"

            def __repr__(self):
                return "Cat(" + repr(self.name) + ")"


        def chorus(names):
            kinds = [Dog, Puppy, Cat]
            result = []
            for i, name in enumerate(names):
                pet = kinds[i % 3](name)
                result.append(pet.speak())
            return result
        """,
        _words(_WORDS, 1, 4),
    ),
    _snip(
        "traffic",
        "light_cycle",
        """
        class TrafficLight:
            ORDER = ("green", "yellow", "red")

            def __init__(self):
                self.index = 0
                self.ticks = 0

            @property
            def color(self):
                return self.ORDER[self.index]

            def advance(self):
                self.index = (self.index + 1) % len(self.ORDER)
                self.ticks += 1

            def run(self, steps):
                seen = []
                for _ in range(steps):
                    seen.append(self.color)
                    self.advance()
                return seen


        def light_cycle(steps):
            light = TrafficLight()
            colors = light.run(steps)
            return colors[-3:], light.ticks
        """,
        _int(1, 7),
    ),
    _snip(
        "ratios",
        "ratio_report",
        """
        class Ratio:
            def __init__(self, num, den):
                if den == 0:
                    raise ZeroDivisionError("zero denominator")
                g = Ratio.common(abs(num), abs(den))
                self.num = num // g
                self.den = den // g

            @staticmethod
            def common(a, b):
                while b:
                    a, b = b, a % b
                return a or 1

            def __add__(self, other):
                return Ratio(self.num * other.den + other.num * self.den, self.den * other.den)

            def __lt__(self, other):
                return self.num * other.den < other.num * self.den

            def __eq__(self, other):
                return self.num * other.den == other.num * self.den

            def __repr__(self):
                return f"{self.num}/{self.den}"


        def ratio_report(pairs):
            items = [Ratio(a, b) for a, b in pairs]
            total = items[0]
            for item in items[1:]:
                total = total + item
            return sorted(items), total, max(items)
        """,
        _pairs(1, 9, 1, 4),
        _choice("Ratio(1, 0)", "ratio_report([(1, 2), (3, 0)])"),
    ),
    # ---- context managers -------------------------------------------------------------
    _snip(
        "recorder",
        "recorded_sum",
        """
        class Recorder:
            def __init__(self, log, label):
                self.log = log
                self.label = label

            def __enter__(self):
                self.log.append("enter " + self.label)
                return self

            def __exit__(self, exc_type, exc, tb):
                self.log.append("exit " + self.label)
                return False


        def recorded_sum(xs):
            log = []
            with Recorder(log, "sum") as rec:
                total = sum(xs)
                log.append(rec.label + "=" + str(total))
            return log
        """,
        _ints(0, 9, 1, 5),
    ),
    _snip(
        "suppress",
        "tolerant_inverse",
        """
        class Suppress:
            def __init__(self, *kinds):
                self.kinds = kinds
                self.caught = 0

            def __enter__(self):
                return self

            def __exit__(self, exc_type, exc, tb):
                if exc_type is not None and issubclass(exc_type, self.kinds):
                    self.caught += 1
                    return True
                return False


        def tolerant_inverse(xs):
            out = []
            guard = Suppress(ZeroDivisionError)
            for x in xs:
                with guard:
                    out.append(12 // x)
            return out, guard.caught
        """,
        _ints(-2, 4, 2, 6),
    ),
    _snip(
        "sections",
        "sections",
        """
        class Section:
            def __init__(self, name, trail):
                self.name = name
                self.trail = trail

            def __enter__(self):
                self.trail.append("+" + self.name)
                return self.name

            def __exit__(self, exc_type, exc, tb):
                self.trail.append("-" + self.name)
                return False


        def sections(names, fail_at):
            trail = []
            for name in names:
                try:
                    with Section("outer", trail), Section(name, trail) as label:
                        if label == fail_at:
                            raise ValueError(label)
                except ValueError as err:
                    trail.append("caught " + str(err))
            return trail
        """,
        _join(_choice("['a', 'b']", "['x', 'y', 'z']", "['p']"), _choice("'a'", "'y'", "'q'")),
    ),
    _snip(
        "tag_builder",
        "render_tags",
        """
        class Tag:
            def __init__(self, parts, name):
                self.parts = parts
                self.name = name

            def __enter__(self):
                self.parts.append(f"<{self.name}>")
                return self.parts

            def __exit__(self, exc_type, exc, tb):
                self.parts.append(f"</{self.name}>")


        def render_tags(items):
            parts = []
            with Tag(parts, "ul"):
                for item in items:
                    with Tag(parts, "li") as inner:
                        inner.append(str(item))
            return "".join(parts)
        """,
        _ints(0, 9, 1, 3),
    ),
    # ---- lambdas ----------------------------------------------------------------------
    _snip(
        "sort_words",
        "sort_words",
        """
        def sort_words(words):
            by_length = sorted(words, key=lambda w: (len(w), w))
            by_last = sorted(words, key=lambda w: w[-1], reverse=True)
            return by_length, by_last[0]
        """,
        _words(_WORDS, 2, 6),
    ),
    _snip(
        "map_filter",
        "map_filter",
        """
        def map_filter(xs):
            evens = filter(lambda x: x % 2 == 0, xs)
            return list(map(lambda x: x * 3, evens))
        """,
        _ints(0, 20, 2, 8),
    ),
    _snip(
        "oldest",
        "oldest",
        """
        def oldest(people):
            name, age = max(people, key=lambda p: p[1])
            youngest = min(people, key=lambda p: (p[1], p[0]))
            return name, age, youngest[0]
        """,
        _records(1, 5),
        _choice("oldest([])"),
    ),
    _snip(
        "rank_players",
        "rank_players",
        """
        def rank_players(records):
            ordered = sorted(records, key=lambda r: (-r[1], r[0]))
            return [name for name, _ in ordered][:3]
        """,
        _records(2, 6),
    ),
    # ---- closures, nonlocal, globals, decorators ------------------------------------------
    _snip(
        "counter",
        "counter_run",
        """
        def make_counter(step):
            count = 0

            def increment():
                nonlocal count
                count += step
                return count

            return increment


        def counter_run(step, times):
            counter = make_counter(step)
            values = []
            for _ in range(times):
                values.append(counter())
            return values
        """,
        _join(_int(1, 5), _int(1, 5)),
    ),
    _snip(
        "adders",
        "apply_adders",
        """
        def make_adder(k):
            def add(x):
                return x + k

            return add


        def apply_adders(ks, x):
            adders = [make_adder(k) for k in ks]
            return [f(x) for f in adders]
        """,
        _join(_ints(0, 9, 1, 4), _int(-5, 5)),
    ),
    _snip(
        "running_max",
        "running_max",
        """
        def running_max(xs):
            best = None

            def consider(x):
                nonlocal best
                if best is None or x > best:
                    best = x
                return best

            return [consider(x) for x in xs]
        """,
        _ints(-5, 9, 2, 7),
    ),
    _snip(
        "memo_ways",
        "ways",
        """
        def memoize(func):
            cache = {}

            def wrapper(n):
                if n not in cache:
                    cache[n] = func(n)
                return cache[n]

            return wrapper


        @memoize
        def ways(n):
            if n < 0:
                return 0
            if n == 0:
                return 1
            return ways(n - 1) + ways(n - 2) + ways(n - 3)
        """,
        _int(1, 12),
    ),
    _snip(
        "count_calls",
        "sum_of_squares",
        """
        def count_calls(func):
            def wrapper(*args, **kwargs):
                wrapper.calls += 1
                return func(*args, **kwargs)

            wrapper.calls = 0
            return wrapper


        @count_calls
        def square(x):
            return x * x


        def sum_of_squares(xs):
            total = 0
            for x in xs:
                total += square(x)
            return total, square.calls
        """,
        _ints(-4, 9, 1, 6),
    ),
    _snip(
        "repeat",
        "bump",
        """
        def repeat(times):
            def decorate(func):
                def wrapper(*args):
                    results = []
                    for _ in range(times):
                        results.append(func(*args))
                    return results

                return wrapper

            return decorate


        BUMPS = [0]


        @repeat(3)
        def bump(k):
            BUMPS[0] += k
            return BUMPS[0]
        """,
        _int(1, 9),
    ),
    _snip(
        "logged",
        "logged_pipeline",
        """
        CALL_LOG = []


        def logged(func):
            def inner(*args):
                CALL_LOG.append(func.__name__)
                return func(*args)

            return inner


        @logged
        def scale(xs, k):
            return [x * k for x in xs]


        @logged
        def shift(xs, k):
            return [x + k for x in xs]


        def logged_pipeline(xs):
            return shift(scale(xs, 2), 1), CALL_LOG[-2:]
        """,
        _ints(0, 9, 1, 5),
    ),
    _snip(
        "observe",
        "observe",
        """
        TOTAL_SEEN = 0


        def observe(xs):
            global TOTAL_SEEN
            for x in xs:
                TOTAL_SEEN += x
            return TOTAL_SEEN
        """,
        _ints(0, 9, 1, 5),
    ),
    _snip(
        "levels",
        "levels_run",
        """
        DEBUG_LEVEL = 0


        def set_level(n):
            global DEBUG_LEVEL
            old = DEBUG_LEVEL
            DEBUG_LEVEL = n
            return old


        def levels_run(values):
            history = []
            for v in values:
                history.append(set_level(v))
            return history, DEBUG_LEVEL
        """,
        _ints(0, 5, 1, 5),
    ),
    # ---- strings ----------------------------------------------------------------------
    _snip(
        "caesar",
        "caesar",
        """
        def caesar(text, shift):
            out = []
            for ch in text:
                if ch.isalpha():
                    base = ord("a") if ch.islower() else ord("A")
                    out.append(chr((ord(ch) - base + shift) % 26 + base))
                else:
                    out.append(ch)
            return "".join(out)
        """,
        _join(_choice("'Hello, World'", "'abc xyz'", "'Zebra!'", "'python 3'"), _int(1, 25)),
    ),
    _snip(
        "palindromes",
        "palindromes",
        """
        def is_palindrome(text):
            cleaned = [ch.lower() for ch in text if ch.isalnum()]
            left, right = 0, len(cleaned) - 1
            while left < right:
                if cleaned[left] != cleaned[right]:
                    return False
                left += 1
                right -= 1
            return True


        def palindromes(phrases):
            return [p for p in phrases if is_palindrome(p)]
        """,
        _words(_PHRASES, 1, 3),
    ),
    _snip(
        "title_case",
        "title_case",
        """
        def title_case(text):
            small = ("a", "of", "the", "and", "or")
            words = text.split()
            return " ".join(w if w in small and i else w.capitalize() for i, w in enumerate(words))
        """,
        _word(_SENTENCES),
    ),
    _snip(
        "rle",
        "rle",
        """
        def rle(text):
            if not text:
                return ""
            out = []
            prev = text[0]
            count = 1
            for ch in text[1:]:
                if ch == prev:
                    count += 1
                else:
                    out.append(f"{prev}{count}")
                    prev = ch
                    count = 1
            out.append(f"{prev}{count}")
            return "".join(out)
        """,
        _choice("'aaabccdddd'", "'abc'", "''", "'zzzzzy'", "'mississippi'"),
    ),
    _snip(
        "score_table",
        "score_table",
        """
        def score_table(rows):
            lines = []
            for name, score, total in rows:
                ratio = score / total
                lines.append(f"{name:<6}{score:>4}/{total:<4}{ratio:6.1%}")
            return lines
        """,
        _score_rows,
    ),
    _snip(
        "vowels",
        "vowel_count",
        """
        def vowel_count(text):
            counts = {v: 0 for v in "aeiou"}
            for ch in text.lower():
                if ch in counts:
                    counts[ch] += 1
            return {k: v for k, v in counts.items() if v}
        """,
        _word(_SENTENCES),
    ),
    _snip(
        "anagrams",
        "anagram_groups",
        """
        def anagram_groups(words):
            groups = {}
            for w in words:
                key = "".join(sorted(w))
                groups.setdefault(key, []).append(w)
            return sorted(sorted(g) for g in groups.values() if len(g) > 1)
        """,
        _words(_ANAGRAMS, 3, 7),
    ),
    _snip(
        "parse_pairs",
        "parse_pairs",
        """
        def parse_pairs(text):
            result = {}
            for part in text.split(";"):
                key, sep, value = part.partition("=")
                if not sep:
                    raise ValueError("missing = in " + part)
                result[key.strip()] = int(value.strip())
            return result
        """,
        _pair_text,
        _choice("parse_pairs('a=1;b')", "parse_pairs('x = 1; y = two')"),
    ),
    _snip(
        "word_freq",
        "word_freq",
        """
        def word_freq(text):
            counts = {}
            for w in text.split():
                counts[w] = counts.get(w, 0) + 1
            return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        """,
        _word(_SENTENCES),
    ),
    _snip(
        "wrap_words",
        "wrap_words",
        """
        def wrap_words(text, width):
            lines = []
            current = ""
            for word in text.split():
                if current and len(current) + 1 + len(word) > width:
                    lines.append(current)
                    current = word
                else:
                    current = (current + " " + word).strip()
            if current:
                lines.append(current)
            return lines
        """,
        _join(_word(_SENTENCES), _int(6, 16)),
    ),
    _snip(
        "normalize_codes",
        "normalize_codes",
        """
        def normalize_codes(codes):
            result = []
            for code in codes:
                code = code.strip().upper().replace("-", "")
                if code.startswith("X"):
                    continue
                result.append(code.zfill(6))
            return result
        """,
        _codes,
    ),
    _snip(
        "histogram_bars",
        "histogram_bars",
        """
        def histogram_bars(counts):
            width = max(counts)
            bars = []
            for i, c in enumerate(counts):
                bars.append("{:>2} {}{}".format(i, "#" * c, "." * (width - c)))
            return bars
        """,
        _ints(0, 6, 1, 4),
        _choice("histogram_bars([])"),
    ),
    _snip(
        "describe_pairs",
        "describe_pairs",
        """
        def describe_pairs(d):
            parts = []
            for key in sorted(d):
                parts.append("%s=%d" % (key, d[key]))
            return "{} items: {}".format(len(parts), ", ".join(parts))
        """,
        _str_dict(1, 4),
    ),
    # ---- containers, unpacking, star-args ------------------------------------------------
    _snip(
        "set_ops",
        "set_ops",
        """
        def set_ops(a, b):
            left = set(a)
            right = set(b)
            both = sorted(left & right)
            return both, sorted(left | right), sorted(left - right), len(left ^ right)
        """,
        _join(_ints(0, 9, 2, 6), _ints(0, 9, 2, 6)),
    ),
    _snip(
        "merge_counts",
        "merge_counts",
        """
        def merge_counts(first, second):
            merged = dict(first)
            for key, value in second.items():
                merged[key] = merged.get(key, 0) + value
            buckets = {}
            for key, value in sorted(merged.items()):
                buckets.setdefault(value % 3, []).append(key)
            return merged, buckets
        """,
        _join(_str_dict(1, 3), _str_dict(1, 3)),
    ),
    _snip(
        "dict_stats",
        "dict_stats",
        """
        def dict_stats(scores):
            total = 0
            for value in scores.values():
                total += value
            best = None
            for key in scores:
                if best is None or scores[key] > scores[best]:
                    best = key
            return total, best, list(scores.keys())[:2]
        """,
        _str_dict(1, 5),
    ),
    _snip(
        "list_ops",
        "list_ops",
        """
        def position_of(xs, x):
            return list(xs).index(x)


        def list_ops(xs, x):
            items = list(xs)
            items.append(x)
            items.insert(0, x)
            items.remove(x)
            i = position_of(items, x)
            items.extend([x, x + 1])
            items.reverse()
            tail = items.pop()
            return items, i, tail
        """,
        _join(_ints(0, 9, 1, 5), _int(0, 9)),
        _choice("position_of([1, 2, 3], 7)", "list_ops([4], 4) and position_of((), 0)"),
    ),
    _snip(
        "tuple_stats",
        "tuple_stats",
        """
        def tuple_stats(values):
            t = tuple(values)
            top = max(t)
            return t.count(top), t.index(top), t[::-1][:3]
        """,
        _ints(0, 5, 1, 7),
    ),
    _snip(
        "unpack_ends",
        "unpack_ends",
        """
        def unpack_ends(xs):
            first, *middle, last = xs
            a, b = divmod(sum(middle), len(xs))
            return first, last, (a, b)
        """,
        _ints(0, 20, 2, 7),
        _choice("unpack_ends([4])", "unpack_ends([])"),
    ),
    _snip(
        "weighted_sum",
        "weighted_sum",
        """
        def weighted_sum(*values, weight=1, offset=0):
            total = offset
            for v in values:
                total += v * weight
            return total
        """,
        _weighted_args,
    ),
    _snip(
        "dot",
        "dot",
        """
        def dot(a, b):
            result = 0
            for x, y in zip(a, b):
                result += x * y
            return result
        """,
        _join(_ints(-3, 5, 2, 5), _ints(-3, 5, 2, 5)),
    ),
    _snip(
        "two_sum",
        "two_sum",
        """
        def two_sum(xs, target):
            seen = {}
            for i, x in enumerate(xs):
                if target - x in seen:
                    return seen[target - x], i
                seen[x] = i
            return None
        """,
        _join(_ints(0, 9, 3, 8), _int(3, 15)),
    ),
    _snip(
        "swap_pairs",
        "swap_pairs",
        """
        def swap_pairs(pairs):
            swapped = [(b, a) for a, b in pairs]
            firsts, seconds = zip(*swapped) if swapped else ((), ())
            return list(firsts), sum(seconds)
        """,
        _pairs(0, 9, 0, 4),
    ),
    _snip(
        "bounded_sum",
        "bounded_sum",
        """
        import math


        def bounded_sum(xs, cap):
            total = 0.0
            for x in xs:
                total += math.sqrt(abs(x))
                if total > cap:
                    return cap
            return round(total, 4)
        """,
        _join(_ints(-20, 50, 2, 6), _int(3, 20)),
    ),
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
