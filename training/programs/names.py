"""Realistic identifier and word pools for generated programs.

Why: a model trained on ``v1 = v2 + v3`` learns nothing about the names real code uses, and
real names carry hints (``count`` is an int, ``words`` a list of strings). The generator draws
every name from the pool of its type, so names and types agree the way they do in real code.
"""

from __future__ import annotations


def _w(words: str) -> tuple[str, ...]:
    """A pool written as one space-separated string."""
    return tuple(words.split())


VAR_NAMES: dict[str, tuple[str, ...]] = {
    "int": _w(
        "total count acc n k m size best score low high step limit diff prod biggest smallest "
        "pos offset carry steps width depth length remaining current prev value num result "
        "sum_ answer delta gap span balance level hits misses matches longest shortest peak "
        "index target bonus penalty rank points cost"
    ),
    "bool": _w(
        "found ok flag done valid changed is_sorted has_neg matched seen_zero all_even "
        "any_big balanced empty is_upper ready"
    ),
    "float": _w("avg ratio mean share rate scale frac weight"),
    "str": _w(
        "s text word line name label prefix suffix out result token part head tail msg key "
        "tag clean joined first last chunk title code status initials acronym summary report "
        "sep pattern rest padded message buf stripped"
    ),
    "list[int]": _w(
        "xs nums values items scores data out result evens odds stack acc merged sizes counts "
        "totals prefix_sums window ys digits positives negatives diffs squares ordered picked "
        "queue lengths weights marks steps history chosen kept"
    ),
    "list[str]": _w(
        "words tokens names parts lines chars keys labels pieces letters fields tags columns "
        "items entries cleaned found upper_words short_words results messages"
    ),
    "dict[str, int]": _w(
        "counts freq scores table index totals ages stock lookup tally inventory prices sizes "
        "ranks votes hist positions"
    ),
    "dict[int, int]": _w(
        "seen hist buckets positions memo squares mapping counts degree last_seen remainders "
        "by_size"
    ),
    "dict[str, list[int]]": _w("groups buckets by_key index grouped table"),
    "set[int]": _w("seen uniq visited pool kept used found evens targets remainders distinct"),
    "tuple[int, int]": _w("pair span bounds point best_pair extremes pos"),
}

LOOP_NAMES: dict[str, tuple[str, ...]] = {
    "int": _w("x n v num value item score y d size"),
    "str": _w("w word name token part item label key tag line"),
    "char": _w("ch c letter char symbol"),
    "index": _w("i j k idx pos step"),
    "key_str": _w("key name word label k"),
    "key_int": _w("key k n num"),
    "val_int": _w("value count v amount total"),
}

VERBS: dict[str, tuple[str, ...]] = {
    "int": _w(
        "count sum score measure total find compute tally rank weigh max min longest checksum "
        "span_of distance depth_of"
    ),
    "bool": _w("has is_valid check all_positive any_match is_balanced contains"),
    "float": _w("average ratio_of mean_of share_of"),
    "str": _w(
        "format render join encode clean normalize describe compress abbreviate reverse "
        "capitalize label mask pad summarize"
    ),
    "list[int]": _w(
        "filter sort merge collect dedupe rotate scale running prefix select shift split "
        "flatten window diff rearrange"
    ),
    "list[str]": _w("split tokenize collect sort filter extract group wrap chunk list"),
    "dict[str, int]": _w("count index tally build group map histogram"),
    "dict[int, int]": _w("count index histogram bucket map group"),
    "dict[str, list[int]]": _w("group bucket index partition"),
    "set[int]": _w("unique collect find distinct common"),
    "tuple[int, int]": _w("min_max bounds split locate extremes divide"),
    "none": _w("update apply process record fill visit"),
}

NOUNS: dict[str, tuple[str, ...]] = {
    "int": _w("number value limit size digits steps level amount"),
    "bool": _w("flag state"),
    "float": _w("ratio rate"),
    "str": _w("text word line name chars vowels string title label"),
    "list[int]": _w("items values scores nums lists pairs runs evens numbers window totals data"),
    "list[str]": _w("words tokens names lines tags fields entries"),
    "dict[str, int]": _w("counts table stock scores prices votes"),
    "dict[int, int]": _w("counts buckets histogram mapping"),
    "set[int]": _w("ids members seen"),
    "tuple[int, int]": _w("pair range bounds"),
    "dict[str, list[int]]": _w("groups"),
}

CLASS_NAMES: tuple[str, ...] = _w(
    "Counter Account Inventory Tracker Buffer Scoreboard Queue Stack Ledger Playlist Basket "
    "Register Gauge Recorder Tally Wallet Library Deck Budget Timer Grid Robot Cart Team "
    "Shelf"
)

EXCEPTION_NAMES: tuple[str, ...] = _w(
    "ValidationError InvalidItem EmptyInput OutOfRange ParseError LimitExceeded BadToken "
    "InsufficientFunds NotFound"
)

METHOD_VERBS: tuple[str, ...] = _w(
    "add push record update apply register insert feed bump load deposit store track put"
)

QUERY_VERBS: tuple[str, ...] = _w(
    "total size summary largest average describe peek score report count_items is_empty "
    "balance_of top snapshot"
)

CONSTANT_NAMES: dict[str, tuple[str, ...]] = {
    "int": _w("LIMIT MAX_ITEMS THRESHOLD STEP BASE WIDTH OFFSET MIN_LEN"),
    "str": _w("VOWELS SEPARATOR PREFIX DIGITS PUNCTUATION MARKER ALPHABET"),
    "list[int]": _w("WEIGHTS DEFAULTS PRIMES LEVELS"),
    "list[str]": _w("STOP_WORDS KEYWORDS COLORS UNITS"),
    "dict[str, int]": _w("PRICES PRIORITY SCORES ROMAN"),
}

WORDS: tuple[str, ...] = _w(
    "apple banana cat dog red blue green alpha beta x id key map sun moon tree code data test "
    "hello world python list item node bob alice eve ok error warn info milk bread egg tea a "
    "the and of to is in it level noon radar stats abc xyz foo bar baz qux zeta pi one two "
    "three four five north south east west up down"
)

LETTERS = "abcdefghijklmnopqrstuvwxyz"

TEXT_PUNCT = " ,.!?-_:;'"

DIGITS = "0123456789"

RESERVED: frozenset[str] = frozenset(
    {
        "abs",
        "all",
        "any",
        "bool",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "int",
        "len",
        "list",
        "map",
        "max",
        "min",
        "ord",
        "chr",
        "print",
        "range",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
        "id",
        "type",
        "input",
        "open",
        "iter",
        "next",
        "hash",
        "format",
        "object",
        "main",
        "ndb_main",
        "self",
        "True",
        "False",
        "None",
        "and",
        "or",
        "not",
        "in",
        "is",
        "if",
        "else",
        "for",
        "while",
        "def",
        "class",
        "return",
        "yield",
        "lambda",
        "try",
        "except",
        "finally",
        "raise",
        "pass",
        "break",
        "continue",
        "import",
        "from",
        "as",
        "with",
        "global",
        "nonlocal",
        "del",
        "assert",
        "elif",
        "async",
        "await",
    }
)
