"""Realistic argument values for the builtin drills and everyday scripts, as source literals.

Why: the model has to learn what ``str.count`` or ``dict.get`` does on the values people
actually pass: words and sentences in mixed case, digits, punctuation, non-ASCII letters,
empty and one-element collections. Random character soup teaches the generator's
distribution instead. Every function here draws from one ``random.Random`` and returns
Python source text (``repr`` of the value), so programs are deterministic per seed.
"""

from __future__ import annotations

import random

# fmt: off
WORDS = (
    "apple", "Banana", "cherry", "kiwi", "Mango", "pear", "plum", "fig", "grape", "lemon",
    "Python", "data", "debug", "stack", "frame", "value", "loop", "index", "token", "parser",
    "hello", "World", "level", "radar", "noon", "civic", "Anna", "river", "stone", "cloud",
    "café", "naïve", "Zürich", "straße", "façade", "jalapeño", "Ørsted", "année", "señor",
    "USA", "NASA", "id", "x", "a", "I", "ok", "OK", "eBay", "iPhone", "McDonald",
    "abc123", "room42", "v2", "2024", "007", "3rd", "user_name", "e-mail", "co-op", "don't",
)
SENTENCES = (
    "the quick brown fox jumps over the lazy dog",
    "Hello, World!",
    "To be, or not to be: that is the question.",
    "It was the best of times, it was the worst of times",
    "  leading and trailing spaces  ",
    "one two  three   four",
    "A man, a plan, a canal: Panama",
    "Café au lait costs 3.50 euros",
    "Error 404: page not found",
    "buy milk, eggs, bread and 2 apples",
    "The year 2024 had 366 days.",
    "MIXED case TEXT with Some Capitals",
    "tab\tseparated\tvalues",
    "line one\nline two\nline three",
    "Zürich, Genève and Basel are in Switzerland",
    "price: $19.99 (tax incl.)",
    "a",
    "",
    "!!!",
    "no_spaces_here",
)
SHORT_TEXTS = (
    "hello", "Hello World", "  padded  ", "abc", "ABC", "a1b2c3", "2024-01-15", "3.14",
    "42", "-17", "007", "", " ", "x", "MiXeD", "snake_case_name", "CamelCaseName",
    "kebab-case-name", "user@example.com", "docs/readme.md", "key=value", "a,b,,c",
    "ñandú", "über", "résumé", "Ελλάδα", "日本語", "tab\there", "two\nlines", "hello!!",
    "Title Case Words", "...", "mississippi", "banana", "aaa", "abcabc", "12:30:45",
)
NUMERIC_TEXTS = ("42", "007", "-17", "0", "3", "12", "1000", "+5", " 8 ", "99")
CHARS = ("a", "e", "s", "o", " ", ",", ".", "-", "_", "!", "1", "A", "é", "l", "t", "n")
SUBSTRINGS = ("a", "e", "an", "the", "is", "o", " ", ", ", "ss", "ab", "!", "1", "na", "l")
SEPARATORS = (",", " ", "-", ", ", ":", ";", "|", "/", "=", "\n", "", "_", "->")
FILL_CHARS = ("*", "-", " ", ".", "0", "#", "=")
INTS = (0, 1, 2, 3, 5, 7, 10, 12, 15, 21, 42, 64, 99, 100, 255, 1000, 1024, -1, -3, -8, -42)
FLOATS = (0.0, 0.5, 1.25, 2.5, 3.14159, -1.5, 10.0, 99.99, 1e-3, 1234.5678, -0.75, 7.0)
BYTES = (
    b"hello", b"Hello World", b"  padded  ", b"abc", b"ABC", b"a1b2c3", b"", b"x",
    b"key=value", b"a,b,,c", b"\x00\x01\x02", b"\xff\xfe", b"GET /index.html",
    "café".encode(), b"line1\nline2", b"tab\tsep", b"12345", b"mississippi",
)
NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy",
         "Mallory", "Oscar", "Peggy", "Zoë", "José", "Chloé", "Björn", "Ana", "Li", "Omar")
CITIES = ("Paris", "Berlin", "Tokyo", "Lima", "Oslo", "Cairo", "Zürich", "São Paulo",
          "Montréal", "Delhi", "Quito", "Rome")
ITEMS = ("apple", "banana", "bread", "milk", "eggs", "cheese", "rice", "tea", "coffee",
         "butter", "pasta", "salt", "sugar", "honey", "soap", "pen", "notebook", "lamp")
# fmt: on


def lit(value: object) -> str:
    """Source text of a value (``repr`` keeps non-ASCII letters readable)."""
    return repr(value)


def word(rng: random.Random) -> str:
    return rng.choice(WORDS)


def text(rng: random.Random) -> str:
    """A string argument: a word, a short text or a sentence."""
    pool = rng.choice((WORDS, SHORT_TEXTS, SENTENCES))
    return rng.choice(pool)


def words(rng: random.Random, low: int = 0, high: int = 6) -> list[str]:
    """A list of words; empty and one-element lists come up regularly."""
    n = rng.choice((low, low + 1, *range(low, high + 1)))
    return [rng.choice(WORDS) for _ in range(max(n, 0))]


def texts(rng: random.Random, low: int = 0, high: int = 5) -> list[str]:
    n = rng.choice((low, low + 1, *range(low, high + 1)))
    return [text(rng) for _ in range(max(n, 0))]


def ints(rng: random.Random, low: int = 0, high: int = 7) -> list[int]:
    n = rng.choice((low, low + 1, *range(low, high + 1)))
    span = rng.choice((9, 20, 100))
    return [rng.randint(-span // 3, span) for _ in range(max(n, 0))]


def floats(rng: random.Random, low: int = 0, high: int = 5) -> list[float]:
    n = rng.randint(low, high)
    return [round(rng.uniform(-5, 100), rng.choice((1, 2))) for _ in range(n)]


def counts(rng: random.Random, low: int = 0, high: int = 5) -> dict[str, int]:
    """A str → int dictionary such as stock levels or word counts."""
    n = rng.randint(low, high)
    keys = rng.sample(rng.choice((ITEMS, NAMES, WORDS[:30])), n)
    return {k: rng.randint(0, 20) for k in keys}


def int_or_text(rng: random.Random) -> int | str:
    return rng.choice(INTS) if rng.random() < 0.5 else rng.choice(NUMERIC_TEXTS)


def bytes_value(rng: random.Random) -> bytes:
    return rng.choice(BYTES)


def small_int(rng: random.Random, low: int = 0, high: int = 6) -> int:
    return rng.randint(low, high)
