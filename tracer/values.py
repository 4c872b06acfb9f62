"""Bounded, deterministic, single-line text for the values a traced program holds.

The tracer calls this module from inside its ``sys.settrace`` hook, once per visible variable
per event, so it is cheap for plain values and never hangs, raises or prints. It imports only
light parts of the standard library. Every rendered value follows the rules below (the
project's README quotes them).

Limits and markers
------------------
``MAX_VALUE_CHARS`` = 160
    A value whose text is longer is cut: its first 160 characters followed by ``CUT_MARKER``
    (``"…<cut>"``), so no value is longer than 166 characters. Rendering stops as soon as the
    limit is passed, so the cost depends on the size of the output, not on the size of the
    object (a ten-million-item list costs the same as a ten-item one).
``MAX_VARIABLES`` = 64
    ``render_locals`` keeps at most 64 entries per frame. With more, it keeps the first 63 and
    adds a final entry with the key ``"…"`` and a value like ``"+12 more variables"``.
``REPR_TIMEOUT_S`` = 0.2
    Wall-clock limit for one call into user code (a ``__repr__``, or the ``__len__`` read
    before it). Past it the value renders as ``<repr timed out>``. One ``render_value`` call
    stops calling user code after ``VALUE_TIMEOUT_S`` (0.5 s) in all, and every later
    user-defined repr in that value renders as ``<repr timed out>``. The timer (``SIGALRM``
    through ``setitimer``) is used only on the main thread. Any handler and timer the program
    set are put back afterwards. Elsewhere user code runs without a time limit. Code stuck
    inside C that never checks for signals cannot be interrupted.
``MAX_GENERIC_LENGTH`` = 10 000
    An object that is not one of the builtin types below, but has a ``len()`` above this, is
    not repr'd at all. It renders as ``<TypeName of length N>``.
``<repr failed: ExcType>``
    The object's ``__repr__`` raised ``ExcType``, or returned something other than a ``str``
    (that shows as ``TypeError``, which is what ``repr()`` raises).

What a value looks like
-----------------------
* ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``, ``bytes``, ``bytearray``,
  ``range``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset`` (exact types, nested in any
  way): exactly ``repr(obj)``, cycles included (``[[...]]``, ``{'a': {...}}``). Only the cut,
  the address and special-token rules below change the text. Subclasses count as "other
  objects".
* An ``int`` of more than 600 bits shows its leading decimal digits, and so is always cut.
  Above 50 000 bits (about 15 000 digits) that would cost too much, so it renders as
  ``<int with N bits>`` (``<negative int with N bits>`` below zero). CPython's 4300-digit
  limit on ``str(int)`` does not apply.
* Functions: ``<function QUALNAME>``. Bound methods: ``<bound method QUALNAME>``. Generators:
  ``<generator object QUALNAME>``. Modules: ``<module 'name'>``. Classes from user code (from
  ``__main__``, or from a module outside the standard library): ``<class 'QUALNAME'>``.
  Standard-library classes show as Python writes them (``<class 'collections.OrderedDict'>``).
  Builtin functions show as Python writes them, without the address.
* An instance whose class keeps ``object.__repr__`` and has a ``__dict__`` or ``__slots__``:
  ``QualName(attr=value, ...)``, slots first, then ``__dict__`` in insertion order, each value
  rendered by these same rules. With no attributes it is ``QualName()``, and an instance met
  again inside itself is ``QualName(...)``.
* Exceptions that keep ``BaseException.__repr__``, ``dataclasses`` instances with their
  generated ``__repr__``, and ``collections.namedtuple`` instances are built here. The text
  matches Python's repr exactly (``ValueError('bad')``, ``Point(x=1, y=2)``), but the parts
  are rendered by these rules, so the cost stays bounded.
* Any other object: its own ``repr()``, called under the guard described above.

Text rules, applied to every value
----------------------------------
* Addresses are removed: every `` at 0x…`` (hexadecimal) goes, and inside ``<…>`` so does any
  ``0x`` followed by at least 6 hex digits (``<object object at 0x7f…>`` becomes
  ``<object object>``). In ``str`` and ``bytes`` data, only hex runs of 6 or more digits count
  as addresses, so ``'jump at 0x1F'`` is kept as it is. Only the first 100 000 characters
  of a value are searched; a value that is nothing but addresses that far shows what is left
  of them, followed by the cut marker.
* One line: every character that ``str.isprintable()`` rejects becomes its repr escape (a
  ``__repr__`` returning ``"a\\nb"`` renders as ``a\\nb``, with a real backslash).
* The delimiters of the language's special tokens never appear: ``<|`` becomes ``<\\|`` and
  ``|>`` becomes ``|\\>``. The backslash goes between the two characters, so ``"<|>"`` becomes
  ``<\\|\\>``. These escapes and the control-character escapes are applied before the cut.
* The same object state always renders to the same text. Timeouts are the exception: they
  depend on the machine.

Nothing here raises: failures become markers. The one exception is ``KeyboardInterrupt``, which
passes through, because it means someone wants the program stopped.
"""

from __future__ import annotations

import re
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from typing import AnyStr

__all__ = [
    "CUT_MARKER",
    "MAX_GENERIC_LENGTH",
    "MAX_VALUE_CHARS",
    "MAX_VARIABLES",
    "REPR_TIMEOUT_S",
    "VALUE_TIMEOUT_S",
    "render_exception",
    "render_locals",
    "render_value",
]

MAX_VALUE_CHARS: int = 160
CUT_MARKER: str = "…<cut>"
MAX_VARIABLES: int = 64
REPR_TIMEOUT_S: float = 0.2
VALUE_TIMEOUT_S: float = 0.5
MAX_GENERIC_LENGTH: int = 10_000

TIMED_OUT = "<repr timed out>"
MORE_VARIABLES_KEY = "…"

# Ints up to this many bits go straight to repr(): at most 181 digits, which is below every
# setting of sys.set_int_max_str_digits (the minimum is 640).
_INT_REPR_BITS = 600
# Above this, finding the leading digits (a division by a power of ten) costs over ~0.3 ms.
_INT_PREFIX_BITS = 50_000
_LOG10_2 = 0.30102999566398120
# A partly kept address at the end of a cleaned prefix is at most ~22 characters long. A
# prefix that still has this many characters beyond the limit after cleaning is long enough.
_ADDRESS_SLACK = 32
_HEAD_CHARS = MAX_VALUE_CHARS + _ADDRESS_SLACK + 8
_GENERIC_HEAD_CHARS = 4 * MAX_VALUE_CHARS
# The longest prefix of a value searched for addresses (a value made of nothing else).
_MAX_CLEANED_CHARS = 100_000
# After the first alarm, raise again this often, in case the user's code swallowed it.
_REFIRE_S = 0.05

_AT_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_AT_ADDRESS_IN_DATA = re.compile(r" at 0x[0-9a-fA-F]{6,}")
_ANGLE_OR_HEX = re.compile(r"[<>]| ?(?<![0-9A-Za-z_])0x[0-9a-fA-F]{6,}")

_OBJECT_REPR = object.__dict__["__repr__"]
_EXCEPTION_REPR = BaseException.__dict__["__repr__"]
_EXCEPTION_ARGS = BaseException.__dict__["args"]
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_DICT = type.__dict__["__dict__"]
_TYPE_NAME = type.__dict__["__name__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_TYPE_MODULE = type.__dict__["__module__"]
_STDLIB_TOP_NAMES = (frozenset(sys.stdlib_module_names) | {"builtins"}) - {"__main__"}
_CAN_ALARM = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
_CAUGHT = (Exception, SystemExit, GeneratorExit)

# Tags of the items on the renderer's explicit stack.
_VALUE = 0
_TEXT = 1
_ITEMS = 2
# How an _ITEMS frame lays out each element.
_PLAIN = 0
_PAIRS = 1
_ATTRIBUTES = 2
_END = object()


# --------------------------------------------------------------------------- public API


def render_value(obj: object) -> str:
    """One bounded, single-line, address-free text for ``obj`` (see the module docstring)."""
    tp = type(obj)
    # Fast paths: the values a trace is mostly made of, whose repr needs no cleaning.
    if obj is None or tp is bool or tp is float or tp is complex:
        return repr(obj)
    if tp is int:
        if -(10**15) < obj < 10**15:  # type: ignore[operator]
            return repr(obj)
    elif tp is str and len(obj) <= MAX_VALUE_CHARS // 2:  # type: ignore[arg-type]
        text = repr(obj)
        if len(text) <= MAX_VALUE_CHARS and "0x" not in text and "|" not in text:
            return text
    return _render_root(obj)


def render_exception(exc: BaseException) -> str:
    """The text of a raised exception, ``ValueError('bad')``, under the same guards."""
    return _render_root(exc)


def render_locals(f_locals: Mapping[str, object], *, module_level: bool) -> dict[str, str]:
    """Render a frame's variables in order, hiding dunder names (and modules at module level)."""
    try:
        items = list(f_locals.items())
    except _CAUGHT as exc:
        return {MORE_VARIABLES_KEY: _failed(exc)}
    shown: list[tuple[str, object]] = []
    for name, value in items:
        if type(name) is str:
            if name.startswith("__") and name.endswith("__"):
                continue
        else:
            name = render_value(name)
        if module_level and issubclass(type(value), types.ModuleType):
            continue
        shown.append((name, value))
    hidden = 0
    if len(shown) > MAX_VARIABLES:
        hidden = len(shown) - (MAX_VARIABLES - 1)
        shown = shown[: MAX_VARIABLES - 1]
    rendered = {name: render_value(value) for name, value in shown}
    if hidden:
        rendered[MORE_VARIABLES_KEY] = f"+{hidden} more variables"
    return rendered


# --------------------------------------------------------------------------- the renderer


class _Full(Exception):
    """Raised by _Output once it holds more than MAX_VALUE_CHARS: rendering stops there."""


class _ReprTimeout(BaseException):
    """Raised into user code by the SIGALRM handler. It is a BaseException so that a plain
    ``except Exception`` in the user's ``__repr__`` does not swallow it."""


class _Output:
    """The pieces rendered so far, plus the deadline for all user code called for this value."""

    __slots__ = ("deadline", "parts", "size")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.deadline = time.monotonic() + VALUE_TIMEOUT_S

    def emit(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size > MAX_VALUE_CHARS:
            raise _Full


def _render_root(obj: object) -> str:
    """Render obj into a fresh budget and apply the text rules; never raises."""
    out = _Output()
    try:
        _render_tree(obj, out)
    except _Full:
        pass
    except _ReprTimeout:  # only if an alarm slipped past the guard's own handling
        return TIMED_OUT
    except _CAUGHT as exc:  # e.g. a dict changed size while a user repr ran
        return _failed(exc)
    return _finish("".join(out.parts))


def _render_tree(root: object, out: _Output) -> None:
    """Walk the value with an explicit stack: deep nesting must not hit the recursion limit
    (the traced program may already be close to it)."""
    active: set[int] = set()  # containers being rendered, to print cycles like Python does
    stack: list = [(_VALUE, root)]
    push = stack.append
    pop = stack.pop
    while stack:
        item = pop()
        tag = item[0]
        if tag == _VALUE:
            _render_one(item[1], out, push, active)
        elif tag == _TEXT:
            out.emit(item[1])
        else:  # an _ITEMS frame: [tag, iterator, first, closing text, layout, id]
            element = next(item[1], _END)
            if element is _END:
                active.discard(item[5])
                out.emit(item[3])
                continue
            if item[2]:
                item[2] = False
            else:
                out.emit(", ")
            push(item)
            layout = item[4]
            if layout == _PLAIN:
                push((_VALUE, element))
            elif layout == _PAIRS:
                push((_VALUE, element[1]))
                push((_TEXT, ": "))
                push((_VALUE, element[0]))
            else:
                out.emit(element[0] + "=")
                push((_VALUE, element[1]))


def _open(
    push: Callable[[object], None],
    active: set[int],
    obj: object,
    elements: Iterator[object],
    closing: str,
    layout: int = _PLAIN,
) -> None:
    """Start rendering the elements of a container that is now on the active path."""
    ident = id(obj)
    active.add(ident)
    push([_ITEMS, elements, True, closing, layout, ident])


def _render_one(
    obj: object, out: _Output, push: Callable[[object], None], active: set[int]
) -> None:
    """Emit one value, or open it as a container whose elements come later off the stack."""
    tp = type(obj)
    if tp is str:
        out.emit(_quoted_text(obj, "'", '"'))  # type: ignore[type-var]
    elif tp is int:
        out.emit(_int_text(obj))  # type: ignore[arg-type]
    elif obj is None or tp is bool or tp is float or tp is complex:
        out.emit(repr(obj))
    elif tp is list or tp is tuple:
        opening, closing = ("[", "]") if tp is list else ("(", ")")
        if not obj:
            out.emit(opening + closing)
        elif id(obj) in active:
            out.emit(opening + "..." + closing)
        else:
            out.emit(opening)
            if tp is tuple and len(obj) == 1:  # type: ignore[arg-type]
                closing = ",)"
            _open(push, active, obj, iter(obj), closing)  # type: ignore[call-overload]
    elif tp is dict:
        if id(obj) in active:
            out.emit("{...}")
        elif not obj:
            out.emit("{}")
        else:
            out.emit("{")
            _open(push, active, obj, iter(obj.items()), "}", _PAIRS)  # type: ignore[attr-defined]
    elif tp is set or tp is frozenset:
        name = "set" if tp is set else "frozenset"
        if not obj:
            out.emit(name + "()")
        elif id(obj) in active:
            out.emit(name + "(...)")
        elif tp is set:
            out.emit("{")
            _open(push, active, obj, iter(obj), "}")  # type: ignore[call-overload]
        else:
            out.emit("frozenset({")
            _open(push, active, obj, iter(obj), "})")  # type: ignore[call-overload]
    elif tp is bytes:
        out.emit(_quoted_text(obj, b"'", b'"'))  # type: ignore[type-var]
    elif tp is bytearray:
        out.emit("bytearray(")
        out.emit(_bytearray_text(obj))  # type: ignore[arg-type]
        out.emit(")")
    elif tp is range:
        out.emit("range(")
        out.emit(_int_text(obj.start))  # type: ignore[attr-defined]
        out.emit(", ")
        out.emit(_int_text(obj.stop))  # type: ignore[attr-defined]
        if obj.step != 1:  # type: ignore[attr-defined]
            out.emit(", ")
            out.emit(_int_text(obj.step))  # type: ignore[attr-defined]
        out.emit(")")
    elif tp is types.FunctionType:
        out.emit(f"<function {obj.__qualname__}>")  # type: ignore[attr-defined]
    elif tp is types.MethodType:
        out.emit(f"<bound method {_method_qualname(obj)}>")  # type: ignore[arg-type]
    elif tp is types.GeneratorType:
        out.emit(f"<generator object {obj.__qualname__}>")  # type: ignore[attr-defined]
    elif issubclass(tp, type):
        out.emit(_class_text(obj))  # type: ignore[arg-type]
    elif issubclass(tp, types.ModuleType):
        out.emit(_module_text(obj))  # type: ignore[arg-type]
    else:
        _render_object(obj, tp, out, push, active)


def _render_object(
    obj: object, tp: type, out: _Output, push: Callable[[object], None], active: set[int]
) -> None:
    """Objects of other types: the layouts built here, else the guarded repr()."""
    owner, repr_fn = _lookup(tp, "__repr__")
    if repr_fn is _OBJECT_REPR:
        attributes = _attributes(obj, tp)
        if attributes is not None:
            name = _TYPE_QUALNAME.__get__(tp)
            if id(obj) in active:
                out.emit(name + "(...)")
            else:
                out.emit(name + "(")
                _open(push, active, obj, attributes, ")", _ATTRIBUTES)
            return
    elif repr_fn is _EXCEPTION_REPR:
        args = _EXCEPTION_ARGS.__get__(obj, tp)
        out.emit(_TYPE_NAME.__get__(tp))
        if type(args) is tuple and len(args) == 1:
            out.emit("(")
            push((_TEXT, ")"))
            push((_VALUE, args[0]))
        else:
            push((_VALUE, args))
        return
    elif type(repr_fn) is types.FunctionType and owner is not None:
        fields = _namedtuple_fields(owner, repr_fn)
        if fields is not None and issubclass(tp, tuple) and len(fields) == tuple.__len__(obj):
            out.emit(_TYPE_NAME.__get__(tp) + "(")
            # No cycle mark: namedtuple's repr has none, Python shows the inner container's.
            pairs = zip(fields, tuple.__iter__(obj), strict=True)
            push([_ITEMS, pairs, True, ")", _ATTRIBUTES, 0])
            return
        pairs = _dataclass_pairs(obj, owner, repr_fn)
        if pairs is not None:
            if id(obj) in active:
                out.emit("...")  # what dataclasses' recursion guard prints
            else:
                out.emit(_TYPE_QUALNAME.__get__(tp) + "(")
                _open(push, active, obj, iter(pairs), ")", _ATTRIBUTES)
            return
    out.emit(_generic_text(obj, out))


def _lookup(tp: type, name: str) -> tuple[type | None, object]:
    """Find a class attribute through the MRO without running metaclass hooks."""
    for klass in _TYPE_MRO.__get__(tp):
        namespace = _TYPE_DICT.__get__(klass)
        if name in namespace:
            return klass, namespace[name]
    return None, None


# --------------------------------------------------------------------------- leaves


def _int_text(value: int) -> str:
    """repr() of an int, or enough leading digits to fill the budget, or its size in bits."""
    bits = value.bit_length()
    if bits <= _INT_REPR_BITS:
        return repr(value)
    if bits > _INT_PREFIX_BITS:
        sign = "negative " if value < 0 else ""
        return f"<{sign}int with {bits} bits>"
    magnitude = -value if value < 0 else value
    # Drop trailing digits so that at least 200 remain; floor division by a power of ten keeps
    # the leading digits exact. The result is longer than the budget, so it is always cut.
    drop = int((bits - 1) * _LOG10_2) - 200
    head = magnitude // 10**drop if drop > 0 else magnitude
    return ("-" if value < 0 else "") + str(head)


def _quoted_text(value: AnyStr, single: AnyStr, double: AnyStr) -> str:
    """repr() of a str or bytes, built from a prefix when the value is long.

    ``single`` and ``double`` are the two quote characters in the value's own type.
    """
    if len(value) <= _HEAD_CHARS:
        return _without_addresses(repr(value), data=True)
    # The quote Python picks depends on the whole value; adding the other quote character to
    # the prefix makes repr() pick the same one and escape alike.
    extra = single if single in value and double not in value else double

    def head(count: int) -> tuple[str, bool]:
        if len(value) <= count:
            return repr(value), True
        return repr(value[:count] + extra)[:-2], False

    return _cleaned_head(head, _HEAD_CHARS, data=True)


def _bytearray_text(value: bytearray) -> str:
    """The ``b'...'`` part of a bytearray's repr, which always escapes single quotes."""
    quote = '"' if b"'" in value and b'"' not in value else "'"

    def head(count: int) -> tuple[str, bool]:
        whole = len(value) <= count
        # With both quote characters present, bytes' repr escapes exactly like bytearray's.
        body = repr(bytes(value[:count]) + b"'\"")[2:-4]
        return "b" + quote + body + (quote if whole else ""), whole

    return _cleaned_head(head, _HEAD_CHARS, data=True)


def _method_qualname(method: types.MethodType) -> str:
    """The qualified name of a bound method's function."""
    func = method.__func__
    if type(func) is types.FunctionType:
        return func.__qualname__
    try:
        name = func.__qualname__
    except _CAUGHT:
        name = None
    return name if type(name) is str else _TYPE_QUALNAME.__get__(type(func))


def _class_text(cls: type) -> str:
    """``<class 'QUALNAME'>`` for user classes, Python's own repr for the standard library's."""
    module = _TYPE_MODULE.__get__(cls)
    if type(module) is str and module.partition(".")[0] in _STDLIB_TOP_NAMES:
        return _clean_generic(_guarded(repr, cls))
    return f"<class '{_TYPE_QUALNAME.__get__(cls)}'>"


def _module_text(module: types.ModuleType) -> str:
    """``<module 'name'>``: no file path, which differs between machines."""
    try:
        name = object.__getattribute__(module, "__dict__").get("__name__")
    except _CAUGHT:
        name = None
    return f"<module {name!r}>" if type(name) is str else "<module ?>"


def _attributes(obj: object, tp: type) -> Iterator[tuple[str, object]] | None:
    """The (name, value) pairs of an instance's slots and __dict__, or None if it has neither."""
    slots: list[tuple[str, object]] = []
    has_slots = False
    for klass in reversed(_TYPE_MRO.__get__(tp)):
        namespace = _TYPE_DICT.__get__(klass)
        declared = namespace.get("__slots__")
        if declared is None or klass is object:
            continue
        has_slots = True
        if type(declared) is str:
            declared = (declared,)
        elif type(declared) not in (tuple, list, dict):
            continue  # an unusual iterable: iterating it again could run user code
        for name in declared:
            if type(name) is not str:
                continue
            descriptor = namespace.get(_mangle(name, _TYPE_NAME.__get__(klass)))
            if type(descriptor) is types.MemberDescriptorType:
                slots.append((name, descriptor))
    try:
        namespace = object.__getattribute__(obj, "__dict__")
    except _CAUGHT:
        namespace = None
    if type(namespace) is not dict:
        namespace = None
    if namespace is None and not has_slots:
        return None
    found = _slot_values(obj, tp, slots)
    return found if namespace is None else chain(found, _str_keyed(namespace))


def _mangle(name: str, class_name: str) -> str:
    """The attribute a ``__private`` slot is stored under."""
    if name.startswith("__") and not name.endswith("__"):
        stripped = class_name.lstrip("_")
        if stripped:
            return f"_{stripped}{name}"
    return name


def _slot_values(
    obj: object, tp: type, slots: list[tuple[str, object]]
) -> Iterator[tuple[str, object]]:
    """Yield the slots that are set, read through their member descriptors (no user code)."""
    for name, descriptor in slots:
        try:
            value = descriptor.__get__(obj, tp)  # type: ignore[attr-defined]
        except AttributeError:
            continue
        yield name, value


def _str_keyed(namespace: dict) -> Iterator[tuple[str, object]]:
    """Yield the entries of an instance __dict__ whose keys are real strings."""
    for key, value in namespace.items():
        if type(key) is str:
            yield key, value


def _namedtuple_fields(owner: type, repr_fn: types.FunctionType) -> tuple[str, ...] | None:
    """The field names when repr_fn is collections.namedtuple's generated __repr__."""
    if repr_fn.__module__ != "collections" or repr_fn.__code__.co_name != "__repr__":
        return None
    fields = _TYPE_DICT.__get__(owner).get("_fields")
    if type(fields) is not tuple or not all(type(name) is str for name in fields):
        return None
    return fields


def _dataclass_pairs(
    obj: object, owner: type, repr_fn: types.FunctionType
) -> list[tuple[str, object]] | None:
    """The (field, value) pairs a dataclass's generated __repr__ would show, or None."""
    module = sys.modules.get("dataclasses")
    code = repr_fn.__code__
    if (
        module is None
        or code.co_name != "wrapper"
        or code.co_filename != getattr(module, "__file__", None)
    ):
        return None
    fields = _TYPE_DICT.__get__(owner).get("__dataclass_fields__")
    if type(fields) is not dict:
        return None
    try:
        namespace = object.__getattribute__(obj, "__dict__")
    except _CAUGHT:
        namespace = {}
    if type(namespace) is not dict:
        return None
    pairs: list[tuple[str, object]] = []
    for name, field in fields.items():
        kind = getattr(getattr(field, "_field_type", None), "name", None)
        if kind != "_FIELD" or not getattr(field, "repr", False):
            continue
        if name in namespace:
            pairs.append((name, namespace[name]))
            continue
        # A slots dataclass keeps the value in a member descriptor; anything else (a property,
        # a missing attribute) needs user code, so the guarded repr() handles the object.
        _, descriptor = _lookup(type(obj), name)
        if type(descriptor) is not types.MemberDescriptorType:
            return None
        try:
            pairs.append((name, descriptor.__get__(obj, type(obj))))  # type: ignore[attr-defined]
        except AttributeError:
            return None
    return pairs


# --------------------------------------------------------------------------- guarded repr


def _generic_text(obj: object, out: _Output) -> str:
    """The cleaned text of repr(obj), run under the time guard."""
    remaining = out.deadline - time.monotonic()
    if remaining <= 0:
        return TIMED_OUT
    return _clean_generic(_guarded(_generic_repr, obj, min(REPR_TIMEOUT_S, remaining)))


def _generic_repr(obj: object) -> str:
    """repr(obj), except for big containers, whose repr would cost too much."""
    tp = type(obj)
    if hasattr(tp, "__len__"):
        try:
            size = len(obj)  # type: ignore[arg-type]
        except Exception:
            size = 0
        if size > MAX_GENERIC_LENGTH:
            return f"<{_TYPE_QUALNAME.__get__(tp)} of length {size}>"
    text = repr(obj)
    return text if type(text) is str else str.__str__(text)


def _failed(exc: BaseException) -> str:
    return f"<repr failed: {_TYPE_NAME.__get__(type(exc))}>"


class _Alarm:
    """State shared with the SIGALRM handler: whether user code may be interrupted now."""

    armed = False
    fired = False


def _on_alarm(signum: int, frame: types.FrameType | None) -> None:
    """Interrupt user code, never the guard's own bookkeeping."""
    if not _Alarm.armed:
        return
    _Alarm.fired = True
    if frame is not None and frame.f_code in _NO_INTERRUPT:
        return  # the alarm fires again in _REFIRE_S if user code is still running
    raise _ReprTimeout


def _guarded(func: Callable[[object], str], arg: object, limit: float = REPR_TIMEOUT_S) -> str:
    """func(arg), or a ``<repr failed: …>`` / ``<repr timed out>`` marker; never raises."""
    if _CAN_ALARM and threading.current_thread() is threading.main_thread():
        return _guarded_with_alarm(func, arg, limit)
    try:
        return func(arg)
    except _CAUGHT as exc:
        return _failed(exc)


def _guarded_with_alarm(func: Callable[[object], str], arg: object, limit: float) -> str:
    """Run func(arg) with a SIGALRM timer, then put back the program's handler and timer."""
    try:
        previous_handler = signal.signal(signal.SIGALRM, _on_alarm)
    except (ValueError, OSError, TypeError):  # not allowed here: run unguarded
        try:
            return func(arg)
        except _CAUGHT as exc:
            return _failed(exc)
    started = time.monotonic()
    previous_delay, previous_interval = signal.setitimer(
        signal.ITIMER_REAL, max(limit, 1e-3), _REFIRE_S
    )
    _Alarm.fired = False
    _Alarm.armed = True
    try:
        result = func(arg)
    except _ReprTimeout:
        result = TIMED_OUT
    except _CAUGHT as exc:
        result = _failed(exc)
    finally:
        _Alarm.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        if previous_handler is not None:
            signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0.0:
            left = previous_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), previous_interval)
    return TIMED_OUT if _Alarm.fired else result


# Where the alarm must not raise: the guard's own bookkeeping after user code has returned.
_NO_INTERRUPT = frozenset({_guarded_with_alarm.__code__, _failed.__code__})


# --------------------------------------------------------------------------- text rules


def _clean_generic(text: str) -> str:
    """Remove addresses from a repr() result, looking at no more of it than the budget needs."""
    if len(text) <= _GENERIC_HEAD_CHARS:
        return _without_addresses(text, data=False)
    return _cleaned_head(
        lambda count: (text[:count], len(text) <= count), _GENERIC_HEAD_CHARS, data=False
    )


def _cleaned_head(head: Callable[[int], tuple[str, bool]], count: int, *, data: bool) -> str:
    """The address-free text of a long value, computed from as short a prefix as will do.

    ``head(count)`` gives the text of the value's first ``count`` units and whether that was
    all of it. Removing addresses can shrink the text below the budget, so the prefix grows
    until enough text survives, up to _MAX_CLEANED_CHARS. Past that the value is almost all
    addresses: what survives is shown, with its last characters (perhaps part of an address
    that runs past the prefix) replaced by the cut marker.
    """
    while True:
        text, whole = head(count)
        cleaned = _without_addresses(text, data=data)
        if whole or len(cleaned) > MAX_VALUE_CHARS + _ADDRESS_SLACK:
            return cleaned
        if count >= _MAX_CLEANED_CHARS:
            return cleaned[:-_ADDRESS_SLACK] + CUT_MARKER
        count *= 4


def _without_addresses(text: str, *, data: bool) -> str:
    """Drop `` at 0x…`` and hex runs inside angle brackets (see the module docstring)."""
    if "0x" not in text:
        return text
    text = (_AT_ADDRESS_IN_DATA if data else _AT_ADDRESS).sub("", text)
    pieces: list[str] = []
    depth = 0
    start = 0
    for match in _ANGLE_OR_HEX.finditer(text):
        token = match.group()
        if token == "<":
            depth += 1
        elif token == ">":
            depth = max(depth - 1, 0)
        elif depth:
            pieces.append(text[start : match.start()])
            start = match.end()
    if not pieces:
        return text
    pieces.append(text[start:])
    return "".join(pieces)


def _escape_char(char: str) -> str:
    """The escape repr() uses for a character str.isprintable() rejects."""
    return repr(char)[1:-1]


def _finish(text: str) -> str:
    """Make the text one line, escape special-token delimiters, then cut it to the limit."""
    if not text.isprintable():
        text = "".join(char if char.isprintable() else _escape_char(char) for char in text)
    if "|" in text:
        text = text.replace("<|", "<\\|").replace("|>", "|\\>")
    if len(text) > MAX_VALUE_CHARS:
        text = text[:MAX_VALUE_CHARS] + CUT_MARKER
    return text
