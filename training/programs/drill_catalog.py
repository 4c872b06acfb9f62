"""The method catalogue of the builtin drills: every public method of the core types.

Why: the model must learn what each method of ``str``, ``list``, ``dict``, ``set``,
``tuple``, ``int``, ``float`` and ``bytes`` does, so every one of them (as listed by
``dir()``; a test checks the catalogue against it) has call templates here, written from the
Python documentation of the built-in types. A template is source text with ``@x`` for the
receiver and ``@name`` placeholders for arguments drawn from realistic value pools
(:mod:`.drill_values`); a method that may raise on ordinary input (``str.index``,
``list.remove``) is guarded the way people guard it (``if sub in s``), so the drills end
normally unless a family means them to fail.

``result`` names the kind of value the call gives (``none``: a statement that mutates the
receiver), so the drill families can chain calls, branch on booleans and sum numbers.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass

from . import drill_values as values

OWNERS = ("str", "bytes", "list", "dict", "set", "tuple", "int", "float")
TYPES = {"str": str, "bytes": bytes, "list": list, "dict": dict, "set": set, "tuple": tuple,
         "int": int, "float": float}  # fmt: skip


@dataclass(frozen=True)
class Op:
    """One call template of a method: ``owner.method`` written as ``template``."""

    owner: str
    method: str
    template: str
    result: str  # str, bytes, int, float, bool, list, tuple, dict, set, none, any


def _ops(owner: str, rows: list[tuple[str, str, str]]) -> list[Op]:
    return [Op(owner, method, template, result) for method, template, result in rows]


# Methods shared by str and bytes (same semantics, bytes arguments for bytes).
_TEXT = [
    ("capitalize", "@x.capitalize()", "self"),
    ("center", "@x.center(@width, @fill)", "self"),
    ("center", "@x.center(@width)", "self"),
    ("count", "@x.count(@sub)", "int"),
    ("count", "@x.count(@sub, @start)", "int"),
    ("endswith", "@x.endswith(@sub)", "bool"),
    ("endswith", "@x.endswith((@sub, @sub2))", "bool"),
    ("expandtabs", "@x.expandtabs(@tab)", "self"),
    ("find", "@x.find(@sub)", "int"),
    ("find", "@x.find(@sub, @start)", "int"),
    ("index", "@x.index(@sub) if @sub in @x else -1", "int"),
    ("isalnum", "@x.isalnum()", "bool"),
    ("isalpha", "@x.isalpha()", "bool"),
    ("isascii", "@x.isascii()", "bool"),
    ("isdigit", "@x.isdigit()", "bool"),
    ("islower", "@x.islower()", "bool"),
    ("isspace", "@x.isspace()", "bool"),
    ("istitle", "@x.istitle()", "bool"),
    ("isupper", "@x.isupper()", "bool"),
    ("join", "@sep.join(@x.split())", "self"),
    ("join", "@sep.join(sorted(@x.split()))", "self"),
    ("ljust", "@x.ljust(@width, @fill)", "self"),
    ("lower", "@x.lower()", "self"),
    ("lstrip", "@x.lstrip()", "self"),
    ("lstrip", "@x.lstrip(@chars)", "self"),
    ("maketrans", "@x.translate(@T.maketrans(@from, @to))", "self"),
    ("partition", "@x.partition(@sep1)", "tuple"),
    ("removeprefix", "@x.removeprefix(@sub)", "self"),
    ("removesuffix", "@x.removesuffix(@sub)", "self"),
    ("replace", "@x.replace(@sub, @repl)", "self"),
    ("replace", "@x.replace(@sub, @repl, 1)", "self"),
    ("rfind", "@x.rfind(@sub)", "int"),
    ("rindex", "@x.rindex(@sub) if @sub in @x else None", "any"),
    ("rjust", "@x.rjust(@width, @fill)", "self"),
    ("rpartition", "@x.rpartition(@sep1)", "tuple"),
    ("rsplit", "@x.rsplit(@sep1, 1)", "list"),
    ("rsplit", "@x.rsplit(maxsplit=@small)", "list"),
    ("rstrip", "@x.rstrip()", "self"),
    ("rstrip", "@x.rstrip(@chars)", "self"),
    ("split", "@x.split()", "list"),
    ("split", "@x.split(@sep1)", "list"),
    ("split", "@x.split(@sep1, @small)", "list"),
    ("splitlines", "@x.splitlines()", "list"),
    ("splitlines", "@x.splitlines(keepends=True)", "list"),
    ("startswith", "@x.startswith(@sub)", "bool"),
    ("startswith", "@x.startswith(@sub, @start)", "bool"),
    ("strip", "@x.strip()", "self"),
    ("strip", "@x.strip(@chars)", "self"),
    ("swapcase", "@x.swapcase()", "self"),
    ("title", "@x.title()", "self"),
    ("translate", "@x.translate(@T.maketrans(@from, @to, @chars))", "self"),
    ("upper", "@x.upper()", "self"),
    ("zfill", "@x.zfill(@width)", "self"),
]

_STR_ONLY = [
    ("casefold", "@x.casefold()", "str"),
    ("encode", "@x.encode()", "bytes"),
    ("encode", "@x.encode('ascii', 'ignore')", "bytes"),
    ("encode", "@x.encode('ascii', 'replace')", "bytes"),
    ("format", "@fmt.format(@x)", "str"),
    ("format", "'{}: {}'.format(@x, len(@x))", "str"),
    ("format_map", "'{word} has {n} letters'.format_map({'word': @x, 'n': len(@x)})", "str"),
    ("isdecimal", "@x.isdecimal()", "bool"),
    ("isidentifier", "@x.isidentifier()", "bool"),
    ("isnumeric", "@x.isnumeric()", "bool"),
    ("isprintable", "@x.isprintable()", "bool"),
]

_BYTES_ONLY = [
    ("decode", "@x.decode()", "str"),
    ("decode", "@x.decode('ascii', 'replace')", "str"),
    ("decode", "@x.decode('latin-1')", "str"),
    ("fromhex", "bytes.fromhex(@x.hex())", "bytes"),
    ("fromhex", "bytes.fromhex(@hexstr)", "bytes"),
    ("hex", "@x.hex()", "str"),
    ("hex", "@x.hex(':')", "str"),
]

_LIST = [
    ("append", "@x.append(@item)", "none"),
    ("clear", "@x.clear()", "none"),
    ("copy", "@x.copy()", "list"),
    ("count", "@x.count(@item)", "int"),
    ("extend", "@x.extend(@items)", "none"),
    ("index", "@x.index(@item) if @item in @x else -1", "int"),
    ("insert", "@x.insert(@small, @item)", "none"),
    ("insert", "@x.insert(0, @item)", "none"),
    ("pop", "@x.pop() if @x else None", "any"),
    ("pop", "@x.pop(0) if @x else None", "any"),
    ("remove", "if @item in @x:\n    @x.remove(@item)", "none"),
    ("reverse", "@x.reverse()", "none"),
    ("sort", "@x.sort()", "none"),
    ("sort", "@x.sort(reverse=True)", "none"),
    ("sort", "@x.sort(key=@key)", "none"),
]

_DICT = [
    ("clear", "@x.clear()", "none"),
    ("copy", "@x.copy()", "dict"),
    ("fromkeys", "dict.fromkeys(@x, 0)", "dict"),
    ("fromkeys", "dict.fromkeys(sorted(@x))", "dict"),
    ("get", "@x.get(@k, 0)", "int"),
    ("get", "@x.get(@k)", "any"),
    ("items", "list(@x.items())", "list"),
    ("items", "sorted(@x.items(), key=lambda kv: kv[1])", "list"),
    ("keys", "list(@x.keys())", "list"),
    ("pop", "@x.pop(@k, None)", "any"),
    ("popitem", "@x.popitem() if @x else None", "any"),
    ("setdefault", "@x.setdefault(@k, @n)", "int"),
    ("update", "@x.update({@k: @n})", "none"),
    ("update", "@x.update(@k2=@n)", "none"),
    ("values", "list(@x.values())", "list"),
    ("values", "sum(@x.values())", "int"),
]

_SET = [
    ("add", "@x.add(@item)", "none"),
    ("clear", "@x.clear()", "none"),
    ("copy", "@x.copy()", "set"),
    ("difference", "@x.difference(@other)", "set"),
    ("difference_update", "@x.difference_update(@other)", "none"),
    ("discard", "@x.discard(@item)", "none"),
    ("intersection", "@x.intersection(@other)", "set"),
    ("intersection_update", "@x.intersection_update(@other)", "none"),
    ("isdisjoint", "@x.isdisjoint(@other)", "bool"),
    ("issubset", "@x.issubset(@other)", "bool"),
    ("issuperset", "@x.issuperset(@other)", "bool"),
    ("pop", "@x.pop() if @x else None", "any"),
    ("remove", "if @item in @x:\n    @x.remove(@item)", "none"),
    ("symmetric_difference", "@x.symmetric_difference(@other)", "set"),
    ("symmetric_difference_update", "@x.symmetric_difference_update(@other)", "none"),
    ("union", "@x.union(@other)", "set"),
    ("update", "@x.update(@other)", "none"),
]

_TUPLE = [
    ("count", "@x.count(@item)", "int"),
    ("index", "@x.index(@item) if @item in @x else -1", "int"),
]

_INT = [
    ("as_integer_ratio", "@x.as_integer_ratio()", "tuple"),
    ("bit_count", "@x.bit_count()", "int"),
    ("bit_length", "@x.bit_length()", "int"),
    ("conjugate", "@x.conjugate()", "int"),
    ("denominator", "@x.denominator", "int"),
    ("from_bytes", "int.from_bytes(@bytes, 'big')", "int"),
    ("from_bytes", "int.from_bytes(@bytes, 'little')", "int"),
    ("imag", "@x.imag", "int"),
    ("numerator", "@x.numerator", "int"),
    ("real", "@x.real", "int"),
    ("to_bytes", "abs(@x).to_bytes(2, 'big')", "bytes"),
    ("to_bytes", "@x.to_bytes(4, 'little', signed=True)", "bytes"),
]

_FLOAT = [
    ("as_integer_ratio", "@x.as_integer_ratio()", "tuple"),
    ("conjugate", "@x.conjugate()", "float"),
    ("fromhex", "float.fromhex(@x.hex())", "float"),
    ("fromhex", "float.fromhex(@hexfloat)", "float"),
    ("hex", "@x.hex()", "str"),
    ("imag", "@x.imag", "float"),
    ("is_integer", "@x.is_integer()", "bool"),
    ("real", "@x.real", "float"),
]


# Builtins, operators and slicing on each type, mixed into the same chains and loops (their
# ``method`` starts with ``builtin:``; the dir() coverage test looks at the others).
_BUILTIN_ROWS = {
    "str": [
        ("len", "len(@x)", "int"),
        ("sorted", "''.join(sorted(@x))", "str"),
        ("reversed", "''.join(reversed(@x))", "str"),
        ("slice", "@x[::-1]", "str"),
        ("slice", "@x[@small:]", "str"),
        ("slice", "@x[-@small:]", "str"),
        ("slice", "@x[:-1]", "str"),
        ("repeat", "@x * @small", "str"),
        ("concat", "@x + @sub", "str"),
        ("in", "@sub in @x", "bool"),
        ("ord", "ord(@x[0]) if @x else 0", "int"),
        ("list", "list(@x)", "list"),
        ("set", "len(set(@x))", "int"),
        ("fstring", "f'<{@x}>'", "str"),
    ],
    "list": [
        ("len", "len(@x)", "int"),
        ("sorted", "sorted(@x)", "list"),
        ("reversed", "list(reversed(@x))", "list"),
        ("slice", "@x[1:]", "list"),
        ("slice", "@x[::-2]", "list"),
        ("slice", "@x[-@small:]", "list"),
        ("concat", "@x + @items", "list"),
        ("in", "@item in @x", "bool"),
        ("minmax", "max(@x, default=None)", "any"),
        ("minmax", "min(@x, key=@key, default=None)", "any"),
        ("enumerate", "list(enumerate(@x))", "any"),
        ("zip", "list(zip(@x, @x[1:]))", "any"),
    ],
    "dict": [
        ("len", "len(@x)", "int"),
        ("sorted", "sorted(@x)", "list"),
        ("in", "@k in @x", "bool"),
        ("index", "@x[@k] if @k in @x else -1", "int"),
        ("max", "max(@x, key=@x.get) if @x else None", "any"),
        ("comprehension", "{k: v for k, v in @x.items() if v > @small}", "dict"),
    ],
    "set": [
        ("len", "len(@x)", "int"),
        ("sorted", "sorted(@x)", "list"),
        ("in", "@item in @x", "bool"),
        ("operator", "@x | @other", "set"),
        ("operator", "@x & @other", "set"),
        ("operator", "@x - @other", "set"),
        ("sum", "sum(@x)", "int"),
    ],
    "tuple": [
        ("len", "len(@x)", "int"),
        ("slice", "@x[::-1]", "tuple"),
        ("slice", "@x[1:]", "tuple"),
        ("concat", "@x + (@item,)", "tuple"),
        ("in", "@item in @x", "bool"),
        ("sorted", "sorted(@x)", "list"),
        ("unpack", "(@x[0], @x[1:]) if @x else (None, ())", "any"),
    ],
    "int": [
        ("abs", "abs(@x)", "int"),
        ("divmod", "divmod(@x, @d)", "tuple"),
        ("floordiv", "@x // @d", "int"),
        ("mod", "@x % @d", "int"),
        ("pow", "pow(@x, 2)", "int"),
        ("round", "round(@x, -1)", "int"),
        ("str", "str(@x)", "str"),
        ("digits", "[int(c) for c in str(abs(@x))]", "list"),
        ("bin", "bin(@x)", "str"),
        ("hex", "hex(@x)", "str"),
        ("format", "f'{@x:,}'", "str"),
        ("format", "f'{@x:05d}'", "str"),
        ("chr", "chr(65 + abs(@x) % 26)", "str"),
        ("range", "list(range(0, @x, @d))", "list"),
    ],
    "float": [
        ("round", "round(@x, 2)", "float"),
        ("round", "round(@x)", "int"),
        ("int", "int(@x)", "int"),
        ("abs", "abs(@x)", "float"),
        ("divmod", "divmod(@x, 1)", "tuple"),
        ("str", "str(@x)", "str"),
        ("format", "f'{@x:.2f}'", "str"),
        ("format", "f'{@x:>10.1f}'", "str"),
        ("format", "f'{@x:.1%}'", "str"),
        ("arith", "@x * 2 - 1", "float"),
    ],
    "bytes": [
        ("len", "len(@x)", "int"),
        ("slice", "@x[::-1]", "bytes"),
        ("slice", "@x[1:3]", "bytes"),
        ("index", "@x[0] if @x else None", "any"),
        ("list", "list(@x)", "list"),
        ("concat", "@x + @sub", "bytes"),
        ("in", "@sub in @x", "bool"),
    ],
}


def _builtin_ops() -> list[Op]:
    return [
        Op(owner, f"builtin:{name}", template, result)
        for owner, rows in _BUILTIN_ROWS.items()
        for name, template, result in rows
    ]


def _self(owner: str, rows: list[tuple[str, str, str]]) -> list[Op]:
    return [Op(owner, m, t, owner if r == "self" else r) for m, t, r in rows]


CATALOGUE: tuple[Op, ...] = (
    *_self("str", _TEXT),
    *_ops("str", _STR_ONLY),
    *_self("bytes", [row for row in _TEXT if row[0] != "translate"]),
    Op("bytes", "translate", "@x.translate(None, @chars)", "bytes"),
    *_ops("bytes", _BYTES_ONLY),
    *_ops("list", _LIST),
    *_ops("dict", _DICT),
    *_ops("set", _SET),
    *_ops("tuple", _TUPLE),
    *_ops("int", _INT),
    *_ops("float", _FLOAT),
    *_builtin_ops(),
)


def ops_of(owner: str) -> tuple[Op, ...]:
    return tuple(op for op in CATALOGUE if op.owner == owner)


def methods_of(owner: str) -> set[str]:
    """The type's methods the catalogue drills (builtin and operator templates left out)."""
    return {op.method for op in ops_of(owner) if not op.method.startswith("builtin:")}


# The element kind a collection drill works on: decides which ``@item`` fits. Sets hold ints:
# a set of strings iterates (and is shown in every state) in an order set by the hash seed.
ELEMENTS = {"list": ("str", "int"), "set": ("int",), "tuple": ("str", "int")}

_HEX_FLOATS = ("0x1.8p1", "0x1p-2", "0x1.4p3", "-0x1p0")
_HEX_BYTES = ("48656c6c6f", "00ff10", "6361666520", "")
_SIMPLE_KEYS = ("len", "str.lower", "str.casefold", "str")
_FORMATS = ("'<{}>'", "'[{:>10}]'", "'{:^9}'", "'{!r}'", "'{0}/{0}'", "'{:*<8}'")


def receiver(rng: random.Random, owner: str, element: str = "str") -> object:
    """A realistic value of ``owner`` (collections hold ``element`` values)."""
    if owner == "str":
        return values.text(rng)
    if owner == "bytes":
        return values.bytes_value(rng)
    if owner == "list":
        return values.words(rng) if element == "str" else values.ints(rng)
    if owner == "tuple":
        return tuple(values.words(rng) if element == "str" else values.ints(rng))
    if owner == "set":
        return set(values.ints(rng))
    if owner == "dict":
        return values.counts(rng)
    if owner == "int":
        return rng.choice(values.INTS)
    return rng.choice(values.FLOATS)


def _argument(rng: random.Random, name: str, owner: str, element: str) -> str:
    """Source text for the placeholder ``@name``."""
    as_bytes = owner == "bytes"

    def text_lit(s: str) -> str:
        return repr(s.encode()) if as_bytes else repr(s)

    if name in ("sub", "sub2"):
        return text_lit(rng.choice(values.SUBSTRINGS + values.CHARS))
    if name in ("sep", "sep1"):
        sep = rng.choice(values.SEPARATORS)
        return text_lit(sep or " ") if name == "sep1" else text_lit(sep)
    if name == "repl":
        return text_lit(rng.choice(("", "_", "*", "-", "X", "and", "!")))
    if name == "fill":
        return text_lit(rng.choice(values.FILL_CHARS))
    if name == "chars":
        return text_lit(rng.choice((" ", ".!?", "-_", "0", "abc", " ,", "xyz", "!")))
    if name in ("from", "to"):
        return text_lit(rng.choice(("aeiou", "abcde", "lo", "-_", "12345"))[:3])
    if name == "T":
        return "bytes" if as_bytes else "str"
    if name == "width":
        return str(rng.choice((0, 3, 5, 8, 10, 12)))
    if name == "tab":
        return str(rng.choice((2, 4, 8)))
    if name in ("start", "small"):
        return str(rng.randint(0, 3))
    if name == "d":
        return str(rng.choice((2, 3, 5, 7, 10)))
    if name == "n":
        return str(rng.choice(values.INTS[:12]))
    if name == "fmt":
        return rng.choice(_FORMATS)
    if name == "hexstr":
        return repr(rng.choice(_HEX_BYTES))
    if name == "hexfloat":
        return repr(rng.choice(_HEX_FLOATS))
    if name == "bytes":
        return repr(values.bytes_value(rng)[:4])
    if name == "item":
        if owner == "set" or element == "int":
            return str(rng.choice(values.INTS[:14]))
        return repr(values.word(rng))
    if name == "items":
        return repr(values.words(rng, 0, 3) if element == "str" else values.ints(rng, 0, 3))
    if name == "other":
        return repr(set(values.ints(rng, 0, 5)))
    if name == "key":
        return rng.choice(_SIMPLE_KEYS) if element == "str" else rng.choice(("abs", "str"))
    if name == "k":
        return repr(rng.choice(values.ITEMS + values.NAMES[:6]))
    if name == "k2":
        return rng.choice(("tea", "milk", "rice", "salt", "Alice", "Bob"))
    raise KeyError(f"no argument pool for @{name}")


_PLACEHOLDER = re.compile(r"@(\w+)")


def fill(op: Op, rng: random.Random, x: str, element: str = "str") -> str:
    """The op's template with ``@x`` → ``x`` and every other placeholder drawn once."""
    drawn: dict[str, str] = {"x": x}

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "to" and "from" in drawn:  # maketrans wants two texts of one length
            width = len(ast.literal_eval(drawn["from"]))
            drawn[name] = repr(("xyzuv" if op.owner == "str" else b"xyzuv")[:width])
        elif name not in drawn:
            drawn[name] = _argument(rng, name, op.owner, element)
        return drawn[name]

    return _PLACEHOLDER.sub(value, op.template)
