"""Tests for tracer.values: exact reprs of plain values, bounds, addresses, guards, locals."""

from __future__ import annotations

import collections
import dataclasses
import functools
import signal
import sys
import threading
import time
import types

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from neural_debugger.tracer.values import (
    CUT_MARKER,
    MAX_VALUE_CHARS,
    MAX_VARIABLES,
    REPR_TIMEOUT_S,
    render_exception,
    render_locals,
    render_value,
)

LONGEST = MAX_VALUE_CHARS + len(CUT_MARKER)


def expected(text: str) -> str:
    """What a plain value's repr becomes: itself, or its first MAX_VALUE_CHARS and the marker."""
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + CUT_MARKER


def timed(obj: object) -> tuple[str, float]:
    start = time.perf_counter()
    text = render_value(obj)
    return text, time.perf_counter() - start


# --------------------------------------------------------------------------- strategies

# No "|": the special-token escape changes it (tested on its own below).
TEXT = st.text(alphabet=st.characters(blacklist_characters="|"), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**170), max_value=10**170)
    | st.floats()
    | st.complex_numbers()
    | TEXT
    | st.binary(max_size=12)
    | st.builds(range, st.integers(-9, 9), st.integers(-9, 9), st.sampled_from([1, 2, -3]))
)
HASHABLE = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3).map(tuple) | st.frozensets(inner, max_size=3),
    max_leaves=6,
)
VALUES = st.recursive(
    SCALARS | st.binary(max_size=12).map(bytearray),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(HASHABLE, inner, max_size=3)
        | st.sets(HASHABLE, max_size=3)
        | st.frozensets(HASHABLE, max_size=3)
    ),
    max_leaves=20,
)


# --------------------------------------------------------------------------- plain values


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_plain_values_render_as_their_repr(value: object) -> None:
    text = repr(value)
    assume("0x" not in text)
    assert render_value(value) == expected(text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.integers(), TEXT, st.tuples(st.integers())), min_size=20))
def test_long_plain_values_keep_the_exact_prefix(value: list) -> None:
    text = repr(value)
    assume("0x" not in text)
    assert render_value(value) == expected(text)


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -7,
        2**64,
        1.5,
        float("nan"),
        float("-inf"),
        3 - 4j,
        "",
        "it's",
        'say "hi"',
        "both ' and \"",
        "tab\tnew\nline\x00\u2028",
        b"",
        b"it's",
        b'\x00\xff"',
        bytearray(),
        bytearray(b"it's"),
        bytearray(b"a'b\"c\\"),
        range(5),
        range(-3, 10, 2),
        [],
        (),
        {},
        set(),
        frozenset(),
        (1,),
        ((),),
        [(1,), [()], {}],
        {1, 2, 3},
        frozenset({"a"}),
        {"a": [1, {"b": (2,)}], (1, 2): frozenset()},
        {None: set(), 1.5: b"x"},
    ],
)
def test_exact_repr_of_builtin_values(value: object) -> None:
    assert render_value(value) == repr(value)


def test_cycles_render_like_python() -> None:
    items: list = []
    items.append(items)
    mapping: dict = {}
    mapping["a"] = mapping
    holder: list = []
    wrapper = (holder,)
    holder.append(wrapper)
    shared = [1]
    for value in (items, mapping, wrapper, [shared, shared], {"x": mapping, "y": items}):
        assert render_value(value) == repr(value)
    assert render_value(items) == "[[...]]"
    assert render_value(mapping) == "{'a': {...}}"


@pytest.mark.parametrize(
    "value",
    [
        "x" * 300,
        "x" * 300 + "'",
        "'" + "x" * 300,
        "'" + "x" * 300 + '"',
        "\n\t\\" * 200,
        "\u00e9\U0001f600" * 200,
        b"x" * 300 + b"'",
        b"'" + b"\x01" * 300,
        bytearray(b"'" + b"y" * 300),
        bytearray(b"y" * 300 + b"'\""),
        list(range(200)),
        tuple("abc" * 100),
        {i: str(i) for i in range(100)},
        set(range(100)),
        frozenset(range(100)),
        [[i] for i in range(100)],
        range(10**150, 10**151),
    ],
)
def test_long_values_are_cut_after_the_exact_prefix(value: object) -> None:
    text = render_value(value)
    assert text == repr(value)[:MAX_VALUE_CHARS] + CUT_MARKER
    assert len(text) == LONGEST


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(10**600), max_value=10**600))
def test_ints_match_repr(value: int) -> None:
    assert render_value(value) == expected(repr(value))


def test_ints_past_the_str_limit_show_their_leading_digits() -> None:
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for value in (10**5000, -(7**9000), 3**30000):
            assert render_value(value) == str(value)[:MAX_VALUE_CHARS] + CUT_MARKER
    finally:
        sys.set_int_max_str_digits(previous)


def test_huge_ints_show_their_size() -> None:
    value = 10**1_000_000
    assert render_value(value) == f"<int with {value.bit_length()} bits>"
    assert render_value(-value) == f"<negative int with {value.bit_length()} bits>"
    assert render_value(range(value)) == f"range(0, <int with {value.bit_length()} bits>)"


# --------------------------------------------------------------------------- cost


def test_ten_million_item_list_is_fast() -> None:
    value = list(range(10_000_000))
    text, seconds = timed(value)
    assert seconds < 0.5
    assert text == repr(value[:100])[:MAX_VALUE_CHARS] + CUT_MARKER


def test_fifty_megabyte_string_is_fast() -> None:
    value = "ab'" * 17_000_000
    text, seconds = timed(value)
    assert seconds < 0.5
    assert text == repr(value[:500])[:MAX_VALUE_CHARS] + CUT_MARKER
    assert text.startswith('"ab')


def test_fifty_megabyte_bytes_is_fast() -> None:
    value = b"\x00" * 50_000_000
    text, seconds = timed(value)
    assert seconds < 0.5
    assert text == repr(value[:500])[:MAX_VALUE_CHARS] + CUT_MARKER


def test_million_key_dict_and_set_are_fast() -> None:
    mapping = {f"key{i}": i for i in range(1_000_000)}
    text, seconds = timed(mapping)
    assert seconds < 0.5
    assert text.startswith("{'key0': 0, 'key1': 1,")
    assert len(text) == LONGEST
    text, seconds = timed(set(range(1_000_000)))
    assert seconds < 0.5
    assert len(text) == LONGEST


def test_million_digit_int_is_fast() -> None:
    value = 10**1_000_000 - 1
    text, seconds = timed(value)
    assert seconds < 0.5
    assert text.startswith("<int with ")


def test_deep_nesting_is_fast() -> None:
    for opener, build in (("[", lambda x: [x]), ("(", lambda x: (x,)), ("{'k': ", None)):
        value: object = 0
        for _ in range(100_000):
            value = build(value) if build else {"k": value}
        text, seconds = timed(value)
        assert seconds < 0.5
        assert len(text) == LONGEST
        assert text.startswith(opener * 3)


def test_rendering_needs_few_stack_frames() -> None:
    value: list = []
    for _ in range(5_000):
        value = [value]
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1

    def descend(levels: int) -> str:
        return descend(levels - 1) if levels else render_value(value)

    assert descend(sys.getrecursionlimit() - depth - 30) == "[" * MAX_VALUE_CHARS + CUT_MARKER


# --------------------------------------------------------------------------- named objects


def helper() -> None:
    """A module-level function to render."""


def outer() -> types.FunctionType:
    def inner() -> None:
        pass

    return inner  # type: ignore[return-value]


class Point:
    def __init__(self, x: object, y: object) -> None:
        self.x = x
        self.y = y

    def norm(self) -> float:
        return 0.0


class Empty:
    pass


class Slotted:
    __slots__ = ("__secret", "a", "b")

    def __init__(self) -> None:
        self.a = 1
        self.__secret = "s"


class Child(Slotted):
    def __init__(self) -> None:
        super().__init__()
        self.c = [3]


def test_functions_render_by_qualname() -> None:
    assert render_value(helper) == "<function helper>"
    assert render_value(outer()) == "<function outer.<locals>.inner>"
    assert render_value(lambda: 0) == (
        "<function test_functions_render_by_qualname.<locals>.<lambda>>"
    )
    assert render_value(Point(1, 2).norm) == "<bound method Point.norm>"
    assert render_value(len) == "<built-in function len>"
    assert render_value([].append) == "<built-in method append of list object>"


def test_classes_modules_and_generators() -> None:
    assert render_value(Point) == "<class 'Point'>"
    assert render_value(int) == "<class 'int'>"
    assert render_value(collections.OrderedDict) == "<class 'collections.OrderedDict'>"
    assert render_value(sys) == "<module 'sys'>"
    assert render_value(collections) == "<module 'collections'>"

    def numbers() -> collections.abc.Iterator[int]:
        yield 1

    assert render_value(numbers()) == (
        "<generator object test_classes_modules_and_generators.<locals>.numbers>"
    )


def test_addresses_never_appear() -> None:
    class Custom:
        def __repr__(self) -> str:
            return f"<Custom {hex(id(self))} at {hex(id(self))}>"

    values = [
        object(),
        helper,
        Point,
        Point(1, 2).norm,
        functools.partial(helper),
        iter([1]),
        Custom(),
        [object(), (helper,)],
        threading.Lock(),
    ]
    for value in values:
        assert "0x" not in repr(render_value(value)), value
    assert render_value(object()) == "<object object>"
    assert render_value(Custom()) == "<Custom>"
    assert render_value([object(), helper]) == "[<object object>, <function helper>]"


def test_address_like_text_in_data_is_kept_unless_it_is_an_address() -> None:
    assert render_value("jump at 0x1F") == "'jump at 0x1F'"
    assert render_value(f"<Foo object at {hex(id(Empty))}>") == "'<Foo object>'"


# --------------------------------------------------------------------------- instances


def test_default_repr_instances_show_their_attributes() -> None:
    assert render_value(Point(1, 2)) == "Point(x=1, y=2)"
    assert render_value(Empty()) == "Empty()"
    assert render_value(Point("a", [Point(None, {1: 2})])) == (
        "Point(x='a', y=[Point(x=None, y={1: 2})])"
    )
    assert render_value(Slotted()) == "Slotted(__secret='s', a=1)"
    assert render_value(Child()) == "Child(__secret='s', a=1, c=[3])"


def test_default_repr_instances_handle_cycles_and_size() -> None:
    node = Point(1, None)
    node.y = node
    assert render_value(node) == "Point(x=1, y=Point(...))"
    text = render_value(Point(list(range(10_000_000)), 0))
    assert text == "Point(x=" + repr(list(range(100)))[: MAX_VALUE_CHARS - 8] + CUT_MARKER


def test_dataclasses_and_namedtuples_match_repr() -> None:
    @dataclasses.dataclass
    class Item:
        name: str
        tags: list
        hidden: int = dataclasses.field(default=0, repr=False)

    @dataclasses.dataclass(slots=True, frozen=True)
    class Frozen:
        a: int
        b: tuple

    pair = collections.namedtuple("pair", "left right")
    cyclic = Item("c", [])
    cyclic.tags.append(cyclic)
    for value in (
        Item("x", [1, 2]),
        Frozen(1, (2,)),
        pair(1, "b"),
        [pair(Item("y", []), None)],
        cyclic,
    ):
        assert render_value(value) == repr(value)
    big = Item("big", list(range(10_000_000)))
    text, seconds = timed(big)
    assert seconds < 0.5
    assert text == repr(Item("big", list(range(100))))[:MAX_VALUE_CHARS] + CUT_MARKER


# --------------------------------------------------------------------------- guarded repr


class Raises:
    def __repr__(self) -> str:
        raise RuntimeError("no")


class NotAString:
    def __repr__(self) -> str:
        return 42  # type: ignore[return-value]


class Sleeps:
    def __repr__(self) -> str:
        time.sleep(10)
        return "late"


class SwallowsOnce:
    def __repr__(self) -> str:
        try:
            time.sleep(10)
        except BaseException:
            time.sleep(10)
        return "late"


class MultiLine:
    def __repr__(self) -> str:
        return "a\nb\r\tc\x00"


class Huge:
    def __repr__(self) -> str:
        return "y" * 100_000


class LongAndSlow:
    def __len__(self) -> int:
        return 20_000

    def __repr__(self) -> str:
        time.sleep(10)
        return "never"


def test_failing_reprs_are_reported() -> None:
    assert render_value(Raises()) == "<repr failed: RuntimeError>"
    assert render_value(NotAString()) == "<repr failed: TypeError>"
    assert render_value([Raises(), 1]) == "[<repr failed: RuntimeError>, 1]"


def test_slow_repr_times_out() -> None:
    for slow in (Sleeps(), SwallowsOnce()):
        text, seconds = timed(slow)
        assert text == "<repr timed out>"
        assert seconds < 1.0
        assert seconds >= REPR_TIMEOUT_S * 0.9


def test_one_value_spends_bounded_time_on_user_code() -> None:
    text, seconds = timed([Sleeps() for _ in range(20)])
    assert seconds < 1.5
    assert text.startswith("[<repr timed out>, <repr timed out>")


def test_timer_and_handler_of_the_program_are_restored() -> None:
    fired: list[int] = []

    def handler(signum: int, frame: object) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 5.0)
        assert render_value(Sleeps()) == "<repr timed out>"
        assert signal.getsignal(signal.SIGALRM) is handler
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 3.0 < left < 5.0
        assert fired == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_big_sized_objects_skip_repr() -> None:
    text, seconds = timed(LongAndSlow())
    assert text == "<LongAndSlow of length 20000>"
    assert seconds < 0.1
    assert render_value(collections.deque(range(20_000))) == "<deque of length 20000>"
    assert render_value(collections.deque(range(3))) == "deque([0, 1, 2])"


def test_generic_reprs_become_one_bounded_line() -> None:
    assert render_value(MultiLine()) == "a\\nb\\r\\tc\\x00"
    assert render_value(Huge()) == "y" * MAX_VALUE_CHARS + CUT_MARKER


def test_reprs_off_the_main_thread() -> None:
    results: list[str] = []

    def work() -> None:
        results.extend(render_value(v) for v in (Raises(), Point(1, 2), MultiLine()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(5)
    assert results == ["<repr failed: RuntimeError>", "Point(x=1, y=2)", "a\\nb\\r\\tc\\x00"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("<|>ab \n\x00\u2028'\\"), max_size=400))
def test_any_repr_text_becomes_a_safe_line(raw: str) -> None:
    class Returns:
        def __repr__(self) -> str:
            return raw

    for text in (render_value(Returns()), render_value(raw), render_value([raw, Returns()])):
        assert "<|" not in text
        assert "|>" not in text
        assert text.isprintable()
        assert len(text) <= LONGEST


def test_special_tokens_are_escaped() -> None:
    assert render_value("<|end_of_text|>") == "'<\\|end_of_text|\\>'"
    assert render_value(["<|>"]) == "['<\\|\\>']"

    class Token:
        def __repr__(self) -> str:
            return "<|frame_sep|>"

    assert render_value(Token()) == "<\\|frame_sep|\\>"


def test_same_state_same_text() -> None:
    value = {"s": {"a", "b", "c"}, "p": Point(object(), helper)}
    assert render_value(value) == render_value(value)


# --------------------------------------------------------------------------- exceptions


def test_exceptions_render_like_repr() -> None:
    try:
        _ = 1 / 0
    except ZeroDivisionError as exc:
        assert render_exception(exc) == "ZeroDivisionError('division by zero')"
    for exc in (
        ValueError("bad"),
        KeyError("k"),
        ValueError(),
        OSError(2, "missing", "f.txt"),
        ExceptionGroup("g", [ValueError(1)]),
    ):
        assert render_exception(exc) == repr(exc)
    assert render_exception(ValueError("x" * 10_000_000)) == (
        "ValueError('" + "x" * (MAX_VALUE_CHARS - 12) + CUT_MARKER
    )


def test_exception_with_broken_repr() -> None:
    class Broken(Exception):
        def __repr__(self) -> str:
            raise TypeError("nope")

    assert render_exception(Broken()) == "<repr failed: TypeError>"


# --------------------------------------------------------------------------- locals


def test_render_locals_hides_dunders_and_module_imports() -> None:
    f_locals = {
        "__name__": "__main__",
        "__builtins__": {},
        "x": 1,
        "os_module": sys,
        "_private": "p",
        "__dunder_only_start": 2,
    }
    assert render_locals(f_locals, module_level=False) == {
        "x": "1",
        "os_module": "<module 'sys'>",
        "_private": "'p'",
        "__dunder_only_start": "2",
    }
    assert render_locals(f_locals, module_level=True) == {
        "x": "1",
        "_private": "'p'",
        "__dunder_only_start": "2",
    }


def test_render_locals_keeps_order_and_caps_the_count() -> None:
    exact = {f"v{i}": i for i in range(MAX_VARIABLES)}
    assert list(render_locals(exact, module_level=False)) == list(exact)
    many = {f"v{i}": i for i in range(100)}
    many["__doc__"] = None
    rendered = render_locals(many, module_level=False)
    assert len(rendered) == MAX_VARIABLES
    assert list(rendered)[: MAX_VARIABLES - 1] == [f"v{i}" for i in range(MAX_VARIABLES - 1)]
    assert rendered["…"] == f"+{100 - (MAX_VARIABLES - 1)} more variables"
    assert rendered["v5"] == "5"


def test_values_made_of_addresses_stay_bounded() -> None:
    address = f" at {hex(id(Empty))}"

    class Addresses:
        def __repr__(self) -> str:
            return "<" + address * 300_000 + ">"

    for value in (address * 300_000, [Addresses()]):
        text, seconds = timed(value)
        assert seconds < 0.5
        assert "0x" not in text
        assert CUT_MARKER in text
