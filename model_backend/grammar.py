"""Constrained decoding of one state: every state written under it parses.

A :class:`StateWriter` walks the layout of a state token by token (see
:mod:`neural_debugger.protocol.encoding`):

* the event token, chosen among the kinds the action can lead to (forward or inverse);
* separators the layout fixes (``\\n``, ``<|src_sep|>``, ``<|arg_sep|>``): *forced*, they cost no
  decoding step;
* the source line: only tokens of the canonical tokenisation (the one training text has) of a
  real line of the program, so the context always reads like training text and no token ever
  needs taking back (a server streaming tokens decodes by the same rule). Tokens every line
  still possible shares are forced; once one line alone fits, the rest of it is;
* the locals: a JSON object of strings in ``json.dumps`` layout, the diff marker first when there
  is one, ``null`` only in a diff, no name twice, never a diff for a call state;
* a return value or exception: one JSON string;
* what the code and the action fix (:mod:`.flow`): after a step into or over from a line or a
  call, a line state shows only a line the code's flow allows next in that frame (after
  ``total = 0``, the line below it) and its locals as a diff; a call state shows a line where
  a frame starts; a breakpoint stops on its own line and shows the whole locals, as does a
  line state after a return or an exception;
* at a line only the module's own code runs, a name the code alone fixes (``LIMIT = 2``,
  ``def parse``: :mod:`.module_constants`) has that value wherever it is shown, and whole
  locals do not close before every such name bound by an earlier top-level statement is shown;
* a plain function's parameters given literals (:mod:`.passed_arguments`) have those values at
  its call state and, where the function keeps them, at its own frame's line states;
* whole locals, and a call state's, do not close before each variable every path from the
  frame's start to the line binds is shown (:meth:`.flow.LineFlow.names_surely_at`): a
  function's arguments at least;
* after a return to ``y = f(x)`` or ``return f(x)`` the caller's next line shows ``y`` with
  the value ``f`` returned, or the caller returns it; after a line that only copies
  (``x = y``, ``total = 0``) the diff shows each target whose text changes, with its source's
  value, and after one that only appends (``out.append(x)``) the list's text with the value
  added (:mod:`.handed_back`); a step into from a line that surely calls the program's code
  first lands on a call or an exception (:meth:`.call_sites.CallSites.surely_calling`);
* a variable's name is a name the code mentions, not a keyword (or one of the markers, or
  ``.0``, the hidden argument of a comprehension's frame), shown once: a model cannot invent
  variables, and never starts a name that could only end as one already shown;
* no more than the tracer ever writes: a value of at most 160 characters, then only the cut
  marker (``…<cut>``) and the closing quote; at most 64 variables and the two markers; a name of
  at most 100 characters. A model that rambles inside a value is made to cut it there;
* well-formed UTF-8 only: a continuation byte only where a character needs one, so a model
  cannot ramble on in bytes that start no character (and decode to nothing readable).

The writer never touches a model; decoders (embedded torch, vLLM) ask it what is allowed and tell
it what was chosen. It also says which part of the state each token belongs to, so the decoder
can turn token log-probabilities into a confidence per part.
"""

from __future__ import annotations

import functools
import io
import json
import keyword
import re
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from neural_debugger.protocol.language import Action
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.protocol.tokens import (
    ARG_SEP,
    DIFF_MARKER_KEY,
    DIFF_MARKER_VALUE,
    SRC_SEP,
    StateKind,
)
from neural_debugger.tracer.values import (
    CUT_MARKER,
    MAX_VALUE_CHARS,
    MAX_VARIABLES,
    MORE_VARIABLES_KEY,
)

from .backend import History
from .flow import CALL_KINDS, LINE_KINDS, Expected, LineFlow, expect
from .repr_syntax import ReprSyntax
from .value_shapes import FIRSTS, Odds, Shape, text_kind
from .vocab import Vocab

MAX_NAME_CHARS = 100
# What a value may still hold once it has MAX_VALUE_CHARS characters: the marker, then its end.
_CUT_TAIL = CUT_MARKER.encode() + b'"'
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
MAX_ENTRIES = MAX_VARIABLES + 2  # the diff marker and the "…" entry for more variables
# Where a value of a few kinds starts: the first bytes of each kind (as JSON string contents)
# and how a decoder weighs it (:func:`.choosing.shortlist`).
KindGroups = tuple[tuple[frozenset[int], Odds], ...]

FORWARD_KINDS = tuple(k for k in StateKind if not k.is_inverse)
INVERSE_KINDS = tuple(k for k in StateKind if k.is_inverse)
_CALL_LIKE = (StateKind.CALL, StateKind.INV_CALL, StateKind.INV_LINE, StateKind.INV_LINE_CALL)
_NO_DIFF = (StateKind.CALL, StateKind.INV_CALL)
_HEX = frozenset(b"0123456789abcdefABCDEF")
_ESCAPES = frozenset(b'"\\/bfnrtu')
# The JSON escapes of a value's text: the tracer escapes every character a repr does not print
# the repr's own way, so only a quote and a backslash are escaped for JSON.
_REPR_ESCAPES = frozenset(b'"\\')
# The characters a JSON escape other than \\uXXXX stands for (as a repr's syntax reads them).
_ESCAPED = {ord('"'): '"', ord("\\"): "\\", ord("/"): "/"}
_MARKER = DIFF_MARKER_KEY.encode()
_MARKER_VALUE = DIFF_MARKER_VALUE.encode()
# Keys a locals object may hold while its frame is not known: the diff marker and the entry for
# more variables (:meth:`Names.within` keeps the latter only for frames of over MAX_VARIABLES).
# ``.0`` (a comprehension's hidden argument) may be any frame's until then too.
_ALWAYS_NAMES = frozenset(n.encode() for n in (DIFF_MARKER_KEY, MORE_VARIABLES_KEY))


def _utf8_lead(byte: int) -> tuple[int, int, int] | None:
    """For a byte that starts a multi-byte UTF-8 character: how many continuation bytes follow
    and the range the first of them must lie in (RFC 3629: no overlong forms, no surrogates,
    nothing past U+10FFFF). None for a byte that starts no character."""
    if 0xC2 <= byte <= 0xDF:
        return 1, 0x80, 0xBF
    if 0xE0 <= byte <= 0xEF:
        low, high = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F)}.get(byte, (0x80, 0xBF))
        return 2, low, high
    if 0xF0 <= byte <= 0xF4:
        low, high = {0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(byte, (0x80, 0xBF))
        return 3, low, high
    return None


class JsonCursor:
    """A byte-level recogniser for the locals object or one string value.

    ``feed`` returns False (and leaves the cursor broken) on the first byte that cannot follow.
    ``field`` names the part being written: ``("var", name)`` inside a value, ``"value"`` inside
    a return value, ``None`` in structure and names.
    """

    __slots__ = (
        "admitted",
        "allow_diff",
        "before",
        "buf",
        "chars",
        "diff",
        "done",
        "escape",
        "fixed",
        "key",
        "keys",
        "kinds",
        "leaning",
        "likely",
        "mode",
        "names",
        "need_diff",
        "required",
        "shape",
        "shapes",
        "state",
        "syntax",
        "tail",
        "utf8",
        "want",
    )

    def __init__(
        self,
        mode: str,
        allow_diff: bool = True,
        names: Names | None = None,
        need_diff: bool = False,
        before: Before | None = None,
        fixed: Mapping[bytes, bytes] | None = None,
        required: frozenset[bytes] = frozenset(),
        want: bytes | None = None,
        shape: Shape | None = None,
        shapes: Mapping[str, Shape] | None = None,
        likely: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self.mode = mode  # "object" or "string"
        self.want = want  # a string's contents, where the code fixes them (None: any)
        # the string being read, where the code fixes what kind of value it writes: one of a
        # few texts, or one starting with one of a few bytes (None: any); and the first bytes
        # of each of those kinds. A return value's from the start; a variable's (``shapes``,
        # by name) from its opening quote
        self.shape = None if shape is None else _shape_bytes(shape)
        self.kinds = () if shape is None else _kind_bytes(shape)
        self.shapes = {
            name.encode(): (_shape_bytes(each), _kind_bytes(each), each.kinds)
            for name, each in (shapes or {}).items()
        }
        # the builtin kinds a return value is among (its shape's), which its repr syntax
        # follows on past the first byte (:mod:`.repr_syntax`: a ``{`` where only a dict is
        # among them starts a dict); None: any. A variable's: its shape's or its uses'
        self.admitted = None if shape is None else shape.kinds
        # the kinds each variable's uses admit (:mod:`.parameter_uses`, by name), which a
        # decoder favours but the grammar does not require; the value being read's, from its
        # opening quote
        self.likely = {
            name.encode(): (_used_bytes(kinds), kinds) for name, kinds in (likely or {}).items()
        }
        self.leaning: KindGroups = ()
        self.names = names  # the names a key may be (None: any)
        self.before = before  # in a diff: what it is a diff against (None: not known)
        # names whose value the code fixes (as JSON string contents), and names the locals
        # must show before they close (whole locals: :mod:`.module_constants`, what every path
        # bound; a diff: what a copy changed)
        self.fixed = fixed or {}
        self.required = required
        self.state = "start"
        self.buf = bytearray()  # the string being read (raw, escapes kept)
        self.key: bytes | None = None
        self.keys: set[bytes] = set()
        self.diff = False
        self.allow_diff = allow_diff or need_diff
        self.need_diff = need_diff  # the object must be a diff: the marker comes first
        self.escape = 0  # 0: none; 1: after a backslash; 2..5: hex digits of \\uXXXX left
        self.chars = 0  # characters of the string being read (an escape counts as one)
        self.tail = 0  # bytes of _CUT_TAIL written: a value past MAX_VALUE_CHARS is being cut
        # the repr syntax of the value being written (:mod:`.repr_syntax`; None: a name, or a
        # value the code fixes)
        self.syntax: ReprSyntax | None = None
        self.utf8 = (0, 0x80, 0xBF)  # continuation bytes a character still needs; the next's range
        self.done = False

    def copy(self) -> JsonCursor:
        other = JsonCursor.__new__(JsonCursor)
        for name in JsonCursor.__slots__:
            setattr(other, name, getattr(self, name))
        other.buf = bytearray(self.buf)
        other.keys = set(self.keys)
        if self.syntax is not None:
            other.syntax = self.syntax.copy()
        return other

    @property
    def field(self) -> object:
        if self.mode == "string":
            return "value" if self.state in ("string", "start") else None
        if self.state in ("value", "null", "value_start") and self.key is not None:
            return ("var", self.key.decode("utf-8", errors="replace"))
        return None

    def feed(self, byte: int) -> bool:
        if self.done:
            return False
        s = self.state
        if s in ("key", "value", "string"):
            return self._string_byte(byte)
        if self.mode == "string":  # start
            if byte != 0x22:
                return False
            self.state = "string"
            self.syntax = ReprSyntax(self.admitted) if self.want is None else None
            return True
        if s == "start":
            ok = byte == 0x7B  # {
            self.state = "first"
        elif s == "first":  # after {: a name or }
            if byte == 0x7D and not self.need_diff and not self.required:
                self.done = True
                return True
            ok = byte == 0x22 and (self.names is None or self._name_left(b""))
            self.state = "key"
        elif s == "colon":
            ok = byte == 0x3A
            self.state = "colon_space"
        elif s == "colon_space":
            ok = byte == 0x20
            self.state = "value_start"
        elif s == "value_start":
            if byte == 0x22:
                self.state = "value"
                plain = self.key not in self.fixed and self.key != _MARKER
                likely = self._likely_now()
                admitted = None if likely is None else likely[1]
                if self.key in self.shapes and self.key not in self.fixed:
                    self.shape, self.kinds, admitted = self.shapes[self.key]
                self.syntax = ReprSyntax(admitted) if plain else None
                self.leaning = () if likely is None else likely[0]
                return True
            ok = byte == 0x6E and self.diff and self.key != _MARKER  # n of null
            if ok and self.before is not None and self.key is not None:
                ok = self.before.may_unbind(self.key)
            self.state = "null"
            self.buf = bytearray(b"n")
        elif s == "null":
            self.buf.append(byte)
            ok = b"null".startswith(bytes(self.buf))
            if ok and len(self.buf) == 4:
                self.state = "after_value"
                self.buf = bytearray()
        elif s == "after_value":
            if byte == 0x7D and self.required <= self.keys:
                self.done = True
                return True
            ok = byte == 0x2C and (self.names is None or self._name_left(b""))  # ,
            self.state = "comma_space"
        elif s == "comma_space":
            ok = byte == 0x20
            self.state = "next_key"
        elif s == "next_key":
            ok = byte == 0x22 and len(self.keys) < MAX_ENTRIES
            self.state = "key"
        else:  # pragma: no cover - every state is listed above
            ok = False
        if not ok:
            self.done = True
            self.state = "broken"
        return ok

    def _string_byte(self, byte: int) -> bool:
        if self.escape == 1:
            if byte not in (_REPR_ESCAPES if self._reading_repr() else _ESCAPES):
                return self._break()
            self.escape = 5 if byte == 0x75 else 0
            self.buf.append(byte)
            return self.escape > 0 or self._read(_ESCAPED.get(byte, "\x00"))
        if self.escape > 1:
            if byte not in _HEX:
                return self._break()
            self.escape = self.escape - 1 if self.escape > 2 else 0
            self.buf.append(byte)
            return self.escape > 0 or self._read(chr(int(self.buf[-4:], 16)))
        if self.tail:
            return self._tail_byte(byte)
        # a value the code fixes: a variable's (the module's constants, a call's result) or a
        # return value (a call's, returned on)
        want = self.want if self.state == "string" else None
        if self.state == "value" and self.key in self.fixed:
            want = self.fixed[self.key]  # type: ignore[index]
        if self.shape is not None and want is None and self.state != "key":
            texts, firsts = self.shape
            if not self.buf and byte in firsts:
                self.shape = None  # a value of one of the types: any text of it from here
            else:
                self.syntax = None  # one of the exact texts, each whole
                prefix = bytes(self.buf) + bytes([byte])
                if byte == 0x22 and bytes(self.buf) in texts:
                    return self._close_string()
                if not any(text.startswith(prefix) for text in texts):
                    return self._break()
                self.buf.append(byte)
                return True
        if want is not None:
            if byte == 0x22 and self.buf == want:
                return self._close_string()
            if not want.startswith(bytes(self.buf) + bytes([byte])):
                return self._break()
            self.buf.append(byte)
            return True
        if self.state == "value" and self.key == _MARKER:  # the diff marker's value: ".."
            if byte == 0x22 and self.buf == _MARKER_VALUE:
                return self._close_string()
            if not _MARKER_VALUE.startswith(bytes(self.buf) + bytes([byte])):
                return self._break()
            self.buf.append(byte)
            return True
        if byte < 0x20:
            return self._break()
        needed, low, high = self.utf8
        if needed:  # inside a multi-byte character
            if not low <= byte <= high:
                return self._break()
            self.utf8 = (needed - 1, 0x80, 0xBF)
        else:  # a new character starts
            if byte >= 0x80:
                lead = _utf8_lead(byte)
                if lead is None:
                    return self._break()
                self.utf8 = lead
            if byte != 0x22 and self.state == "key" and self.chars >= MAX_NAME_CHARS:
                return self._break()
            if byte != 0x22 and self.state != "key" and self.chars >= MAX_VALUE_CHARS:
                self.utf8 = (0, 0x80, 0xBF)
                return self._tail_byte(byte)
            self.chars += 1
        if self.state == "key" and self.need_diff and not self.keys:
            if not (_MARKER + b'"').startswith(bytes(self.buf) + bytes([byte])):
                return self._break()
        elif self.state == "key" and self.names is not None:
            if byte == 0x22:
                if bytes(self.buf) not in self.names.full:
                    return self._break()
            elif not self._name_left(bytes(self.buf) + bytes([byte])):
                return self._break()
        if byte == 0x5C:  # backslash
            syntax = self.syntax if self._reading_repr() else None
            if syntax is not None and not any(syntax.copy().feed(c) for c in '"\\'):
                return self._break()  # what it escapes could not go on the repr
            self.escape = 1
            self.buf.append(byte)
            return True
        if byte != 0x22:
            self.buf.append(byte)
            # a character read whole: its first byte stands for it (only ASCII is syntax)
            if needed > 0 or not self._read(chr(byte) if byte < 0x80 else "\xa0"):
                return needed > 0
            return not self._closed_as_before()
        if self.syntax is not None and self.state != "key" and not self.syntax.ended():
            return self._break()  # a value ends only where its repr can
        return self._close_string()

    def _reading_repr(self) -> bool:
        """Whether a value's text is being read by its repr syntax (not a free one's): its JSON
        escapes are then only ``\\"`` and ``\\\\`` (the tracer writes every other character a
        repr does not print as the repr's own escape, so a value's JSON text needs no other),
        and the backslash only where the quote or backslash it escapes can go on the repr."""
        return self.syntax is not None and self.syntax.mode != "free" and self.state != "key"

    def _read(self, char: str) -> bool:
        """Read one character of a value into its repr syntax (:mod:`.repr_syntax`)."""
        if self.state == "key" or self.syntax is None or self.syntax.feed(char):
            return True
        return self._break()

    def _closed_as_before(self) -> bool:
        """Whether the value just written ends where nothing can follow (a closed bracket or
        quote) and is, in a diff, the variable's value before (which the closing quote would
        refuse): a dead end, refused at its last byte instead (it breaks the cursor)."""
        if self.syntax is None or self.syntax.mode != "done" or not self.diff:
            return False
        if self.before is None or self.key is None or self.state == "key":
            return False
        if self.before.values.get(self.key) != bytes(self.buf):
            return False
        self._break()
        return True

    def _tail_byte(self, byte: int) -> bool:
        """A byte of a value cut at MAX_VALUE_CHARS: the cut marker's, then the closing quote."""
        if byte != _CUT_TAIL[self.tail]:
            return self._break()
        self.tail += 1
        if self.tail < len(_CUT_TAIL):
            self.buf.append(byte)
            return True
        self.tail = 0
        self.syntax = None  # a cut value ends with the marker, wherever its repr stood
        return self._close_string()

    def _name_left(self, prefix: bytes) -> bool:
        """Whether some name not shown yet starts with ``prefix`` (no dead end at a name)."""
        assert self.names is not None
        total = self.names.prefixes.get(prefix, 0) if prefix else len(self.names.full)
        taken = sum(1 for key in self.keys if key.startswith(prefix))
        marker_gone = self.keys or not self.allow_diff  # the diff marker only comes first
        if marker_gone and _MARKER.startswith(prefix) and _MARKER not in self.keys:
            taken += 1
        return total > taken

    def _close_string(self) -> bool:
        text = bytes(self.buf)
        self.buf = bytearray()
        self.chars = 0
        self.shape = None
        self.syntax = None
        if self.state == "string":
            self.done = True
            return True
        if self.state == "key":
            first = not self.keys
            if not text or text in self.keys:
                return self._break()
            if text == _MARKER and not (first and self.allow_diff):
                return self._break()
            self.diff = self.diff or (first and text == _MARKER)
            self.keys.add(text)
            self.key = text
            self.state = "colon"
            return True
        # a value
        if self.key == _MARKER and text != _MARKER_VALUE:
            return self._break()
        if (
            self.diff
            and self.before is not None
            and self.key is not None
            and self.before.values.get(self.key) == text
        ):
            return self._break()  # a diff shows a variable only with another value
        self.state = "after_value"
        return True

    def _break(self) -> bool:
        self.done = True
        self.state = "broken"
        return False

    def kinds_next(self) -> tuple[KindGroups, bytes] | None:
        """Where a value whose kinds the code fixes, or its uses favour, is about to start:
        :func:`_kind_bytes` of its shape (:func:`_used_bytes` of its uses), and what the next
        token writes before the value's first byte (the space and the opening quote after a
        name's colon, the opening quote, or nothing). None elsewhere."""
        if self.buf or self.escape:
            return None
        if self.state == "start" and self.mode == "string" and self.want is None:
            return (self.kinds, b'"') if self.shape is not None else None
        if self.state in ("colon_space", "value_start"):
            lead = b' "' if self.state == "colon_space" else b'"'
            if self.key in self.shapes and self.key not in self.fixed:
                return self.shapes[self.key][1], lead
            likely = self._likely_now()
            return (likely[0], lead) if likely is not None else None
        if self.state in ("string", "value") and self.shape is not None:
            return self.kinds, b""
        if self.state == "value" and self.leaning:
            return self.leaning, b""
        return None

    def _likely_now(self) -> tuple[KindGroups, frozenset[str]] | None:
        """The kinds the uses of the variable whose value starts favour (None: no such)."""
        if self.key is None or self.key in self.fixed or self.key in self.shapes:
            return None
        return self.likely.get(self.key)


class Before:
    """The locals a diff is written against, as the grammar compares them: a diff shows a
    variable only with a value other than the one it had (as JSON string contents, the way
    the language writes them), and ``null`` only for a variable it had (any, where the frame
    had more variables than were shown). A value cut at MAX_VALUE_CHARS is left out: a
    different value can be cut to the same text, and the cut marker alone may follow it."""

    __slots__ = ("_names", "complete", "values")

    def __init__(self, locals_: Mapping[str, str | None]) -> None:
        self.complete = MORE_VARIABLES_KEY not in locals_
        self.values = _json_texts(
            {
                name: value
                for name, value in locals_.items()
                if value is not None and not value.endswith(CUT_MARKER)
            }
        )
        self._names = frozenset(name.encode() for name in locals_)

    def may_unbind(self, name: bytes) -> bool:
        return not self.complete or name in self._names


def _first_bytes(kind: str) -> set[int]:
    """The bytes a value of the builtin type ``kind`` starts with as JSON string contents (a
    quote is written escaped)."""
    return set(FIRSTS[kind].replace('"', "\\").encode())


@functools.lru_cache(maxsize=1024)
def _shape_bytes(shape: Shape) -> tuple[tuple[bytes, ...], frozenset[int]]:
    """A :class:`.value_shapes.Shape` as a value's JSON string contents: its texts, and the
    first bytes of its types' texts (cached: a session writes the same shapes again)."""
    texts = tuple(_json_texts({"": text})[b""] for text in sorted(shape.texts))
    return texts, frozenset(b for kind in shape.types for b in _first_bytes(kind))


@functools.lru_cache(maxsize=1024)
def _kind_bytes(shape: Shape) -> KindGroups:
    """The first bytes of each kind of value ``shape`` holds, as JSON string contents, and
    how a decoder weighs it: a ``None`` only an exception gives (:attr:`.value_shapes.Shape.
    raised`) as such, others by the model; kinds whose texts can start alike (an ``int`` and
    a ``float``) are one."""
    groups: list[tuple[set[int], bool]] = []
    for kind in sorted(shape.kinds):
        texts = [t for t in shape.texts if text_kind(t) == kind]
        firsts = {_json_texts({"": t})[b""][0] for t in texts}
        if kind in shape.types:
            firsts |= _first_bytes(kind)
        raised = shape.raised and kind == "NoneType"
        for group in [g for g in groups if g[0] & firsts]:
            groups.remove(group)
            firsts |= group[0]
            raised = raised and group[1]
        groups.append((firsts, raised))
    return tuple((frozenset(g), Odds.RAISED if raised else Odds.MODEL) for g, raised in groups)


@functools.lru_cache(maxsize=1024)
def _used_bytes(kinds: frozenset[str]) -> KindGroups:
    """The first bytes of each of ``kinds`` (a parameter's, :mod:`.parameter_uses`), kinds
    that can start alike as one, weighed by the model; and every other first byte, as a
    kind the uses do not admit."""
    groups: list[set[int]] = []
    for kind in sorted(kinds):
        firsts = _first_bytes(kind)
        for group in [g for g in groups if g & firsts]:
            groups.remove(group)
            firsts |= group
        groups.append(firsts)
    other = frozenset(range(256)) - set().union(*groups)
    return (*((frozenset(g), Odds.MODEL) for g in groups), (other, Odds.UNUSED))


def _json_texts(values: Mapping[str, str]) -> dict[bytes, bytes]:
    """Names and values as a locals object writes them: the values' JSON string contents."""
    return {
        name.encode(): json.dumps(value, ensure_ascii=False)[1:-1].encode()
        for name, value in values.items()
    }


_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}


def variable_names(code: str) -> set[str]:
    """Identifiers of ``code`` that can name a variable: names outside strings and comments that
    do not only appear after a dot. Words of a docstring or a comment, and method names such as
    ``append``, are not variables; letting the model write them as locals costs accuracy. Code
    that does not tokenize falls back to every identifier in it."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return set(_IDENTIFIER.findall(code))
    names: set[str] = set()
    previous: tokenize.TokenInfo | None = None
    for token in tokens:
        after_dot = previous is not None and previous.exact_type == tokenize.DOT
        if token.type == tokenize.NAME and not after_dot:
            names.add(token.string)
        if token.type not in _LAYOUT:
            previous = token
    return names


# Narrowed name sets one program keeps: one per frame and per set of variables a step cannot
# change, which a long session can make many of.
_NARROWED_KEPT = 256


class Names:
    """The variable names a state of this code may show, and all their prefixes (as bytes)."""

    def __init__(self, code: str) -> None:
        found = variable_names(code) - set(keyword.kwlist)
        self._take(frozenset(name.encode() for name in found | {".0"}) | _ALWAYS_NAMES)
        self._within: dict[tuple[frozenset[str], frozenset[str]], Names] = {}

    def within(self, names: frozenset[str], hidden: frozenset[str] = frozenset()) -> Names:
        """These names narrowed to ``names`` (the variables of one frame; ``.0`` only for a
        comprehension's), less ``hidden`` (ones this state may not show). The diff marker
        stays; the entry for more variables only where the frame has more than the tracer
        shows, since a frame of at most MAX_VARIABLES names never needs it."""
        narrowed = self._within.get((names, hidden))
        if narrowed is None:
            narrowed = Names.__new__(Names)
            markers = _ALWAYS_NAMES if len(names) > MAX_VARIABLES else {_MARKER}
            narrowed._take(self.full & {n.encode() for n in names - hidden} | markers)
            narrowed._within = {}
            if len(self._within) >= _NARROWED_KEPT:  # a long session: forget the oldest
                del self._within[next(iter(self._within))]
            self._within[(names, hidden)] = narrowed
        return narrowed

    def _take(self, full: frozenset[bytes]) -> None:
        self.full = full
        self.prefixes: dict[bytes, int] = {}  # prefix -> how many names start with it
        for name in self.full:
            for end in range(1, len(name) + 1):
                self.prefixes[name[:end]] = self.prefixes.get(name[:end], 0) + 1


class SourceLines:
    """The program's lines as UTF-8 bytes, for the source-line constraint, its names, and its
    line flow (which lines can follow which)."""

    def __init__(self, lines: Iterable[str], vocab: Vocab) -> None:
        self.vocab = vocab
        lines = list(lines)
        code = "\n".join(lines)
        self.names = Names(code)
        self.lines = tuple(dict.fromkeys(ln.encode() for ln in lines if ln.strip()))
        self.flow = LineFlow(code)
        self.map = SourceMap(code)
        self._canonical: dict[bytes, list[int]] = {}

    def expect(self, history: History, action: Action) -> Expected:
        """What the code and ``action`` fix about the next state (:func:`.flow.expect`)."""
        return expect(self.flow, self.map, history.states, history.actions, action)

    def candidates(self, written: bytes) -> list[bytes]:
        return [ln for ln in self.lines if ln.startswith(written)]

    def canonical(self, line: bytes) -> list[int]:
        """The line and its newline as the tokenizer writes them in training text."""
        ids = self._canonical.get(line)
        if ids is None:
            ids = self.vocab.encode(line.decode("utf-8") + "\n")
            self._canonical[line] = ids
        return ids


@dataclass
class Forced:
    """Tokens the grammar fixes from here: the decoder appends ``ids`` (never changing a token
    already written, so a server streaming tokens can follow the same rule)."""

    ids: list[int]


def _common_prefix(sequences: list[list[int]]) -> list[int]:
    """The longest list every one of ``sequences`` starts with (none: empty)."""
    if not sequences:
        return []
    first = sequences[0]
    end = min(len(seq) for seq in sequences)
    for i in range(end):
        if any(seq[i] != first[i] for seq in sequences):
            return first[:i]
    return first[:end]


class StateWriter:
    """Where the decoder stands in the grammar of one state."""

    def __init__(
        self,
        vocab: Vocab,
        source: SourceLines,
        kinds: Iterable[StateKind],
        expected: Expected | None = None,
    ) -> None:
        """``expected``: what the code and the action fix about the state (:func:`.flow.expect`):
        the source lines it may show, and whether a line state's locals are a diff."""
        self.vocab = vocab
        self.source = source
        self.expected = expected or Expected()
        self._lines = {
            kind: frozenset(ln.encode() for ln in lines)
            for kind, lines in self.expected.lines.items()
        }
        # a kind the expectation leaves no source line for cannot come (a line after a frame's
        # last line); should that leave none at all, every kind stays writable
        kinds = list(kinds)
        possible = [k for k in kinds if self._lines.get(k, True)] or kinds
        self.kinds = {vocab.special_id[k.token]: k for k in possible}
        self.kind: StateKind | None = None
        self.parts: list[tuple[str, object]] = [("event", None)]
        self.done = False
        self._written = b""  # of the source line
        self._src_ids: list[int] = []  # the source line's tokens so far
        self._cursor: JsonCursor | None = None

    # ---- what may come next ----------------------------------------------------------

    @property
    def part(self) -> str:
        return self.parts[0][0]

    def forced(self) -> Forced | None:
        """Tokens fixed from here, if any (they are applied by :meth:`take_forced`)."""
        if self.done:
            return None
        kind, arg = self.parts[0]
        if kind == "literal":
            return Forced([arg])  # type: ignore[list-item]
        if kind == "src":
            common = _common_prefix(self._continuations())
            if common:
                return Forced(common)
        if kind == "event" and len(self.kinds) == 1:
            return Forced(list(self.kinds))
        return None

    def allowed_ids(self) -> set[int] | None:
        """The complete set of allowed ids, where it is cheap to list; None: ask :meth:`accepts`."""
        kind = self.parts[0][0]
        if kind == "event":
            return set(self.kinds)
        if kind == "src":
            return {rest[0] for rest in self._continuations()}
        return None

    def _candidates(self) -> list[bytes]:
        """Lines the source line written so far can still become: lines the code and the action
        allow (any line, should they allow none) whose canonical tokenisation starts with the
        tokens written. Only canonical tokens are ever allowed, so the line reads as it did in
        training text without rewriting a token already written."""
        candidates = self.source.candidates(self._written)
        allowed = self._lines.get(self.kind)  # type: ignore[arg-type]
        if allowed is not None:
            candidates = [ln for ln in candidates if ln in allowed] or candidates
        written = self._src_ids
        return [ln for ln in candidates if self.source.canonical(ln)[: len(written)] == written]

    def _continuations(self) -> list[list[int]]:
        """The canonical tokens that complete each candidate line (its newline included)."""
        start = len(self._src_ids)
        return [self.source.canonical(ln)[start:] for ln in self._candidates()]

    def value_kinds(self) -> tuple[KindGroups, bytes] | None:
        """Where a value whose kinds the code fixes starts (:mod:`.value_shapes`: a return
        value, a variable's), or whose kinds its uses favour (:mod:`.parameter_uses`: a call
        state's parameter): the first bytes of each kind and how a decoder weighs it, and
        what the next token writes before that byte (:meth:`JsonCursor.kinds_next`). None
        elsewhere, or where one kind alone is left."""
        cursor = self._cursor
        if self.parts[0][0] not in ("string", "object") or cursor is None:
            return None
        found = cursor.kinds_next()
        return found if found is not None and len(found[0]) > 1 else None

    def accepts(self, token: int) -> bool:
        kind = self.parts[0][0]
        if kind == "event":
            return token in self.kinds
        if kind == "literal":
            return token == self.parts[0][1]
        piece = self.vocab.bytes_of[token]
        if piece is None:
            return False
        if kind == "src":
            return token in self.allowed_ids()  # type: ignore[operator]
        assert self._cursor is not None
        cursor = self._cursor.copy()
        return all(cursor.feed(b) for b in piece) if not cursor.done else False

    # ---- what was chosen -------------------------------------------------------------

    def take_forced(self, forced: Forced) -> None:
        for token in forced.ids:
            self.advance(token)

    def advance(self, token: int) -> set[object]:
        """Take ``token``; returns the parts it wrote (``"event"``, ``"src"``, fields)."""
        kind, arg = self.parts[0]
        if kind == "event":
            self.kind = self.kinds[token]
            self.parts = [*self._layout(self.kind)]
            self._start_next_part()
            return {"event"}
        if kind == "literal":
            if token != arg:
                raise ValueError("the grammar fixes this token")
            self.parts.pop(0)
            self._start_next_part()
            return set()
        piece = self.vocab.bytes_of[token]
        if piece is None:
            raise ValueError("a special token inside free text")
        if kind == "src":
            candidates = self._candidates()
            start = len(self._src_ids)
            canonical = [self.source.canonical(ln) for ln in candidates]
            if not any(start < len(ids) and ids[start] == token for ids in canonical):
                raise ValueError("the token leaves the canonical tokens of every source line")
            self._src_ids.append(token)
            self._written += piece
            for line, ids in zip(candidates, canonical, strict=True):
                if ids == self._src_ids:  # the line and its newline are written
                    self._written = line
                    self.parts.pop(0)
                    self._start_next_part()
                    break
            return {"src"}
        cursor = self._cursor
        assert cursor is not None
        touched: set[object] = set()
        for b in piece:
            field = cursor.field
            if not cursor.feed(b):
                raise ValueError("the token breaks the JSON")
            after = cursor.field
            if field is not None:
                touched.add(field)
            if after is not None:
                touched.add(after)
        if cursor.done:
            self.parts.pop(0)
            self._start_next_part()
        return touched

    def _unchanged(self) -> frozenset[str]:
        """Variables the line state's locals may not show, since the step cannot change them
        (:attr:`Expected.unchanged`, by the state's line). A forward line state writes its
        locals before its line: then those hidden on every line it may show."""
        unchanged = self.expected.unchanged
        if self.kind is not StateKind.LINE:
            return unchanged.get(self._written.decode(errors="replace"), frozenset())
        texts = self.expected.lines.get(StateKind.LINE)
        if not texts or any(text not in unchanged for text in texts):
            return frozenset()
        return frozenset.intersection(*(unchanged[text] for text in texts))

    # ---- layout ----------------------------------------------------------------------

    def _layout(self, kind: StateKind) -> list[tuple[str, object]]:
        ids = self.vocab.special_id
        newline = ("literal", self.vocab.newline)
        if kind.is_exit:
            return []
        if kind is StateKind.LINE:
            return [
                newline,
                ("literal", ids[ARG_SEP]),
                ("object", True),
                ("literal", ids[SRC_SEP]),
                ("src", None),
            ]
        head = [newline, ("literal", ids[SRC_SEP]), ("src", None), ("literal", ids[ARG_SEP])]
        if kind in _CALL_LIKE:
            return [*head, ("object", kind not in _NO_DIFF)]
        return [*head, ("string", None)]

    def _start_next_part(self) -> None:
        if not self.parts:
            self.done = True
            return
        kind, arg = self.parts[0]
        if kind == "src":
            self._written = b""
            self._src_ids = []
        elif kind == "object":
            diff = self.expected.diff if self.kind in LINE_KINDS else None
            frame = self.expected.names if self.kind in LINE_KINDS else None
            hidden = self._unchanged() if self.kind in LINE_KINDS else frozenset()
            required = self.expected.required if self.kind in LINE_KINDS else frozenset()
            # the module's constants, kept parameters, copies (forward line states)
            fixed = self.expected.fixed if self.kind is StateKind.LINE else None
            shapes = self.expected.shapes if self.kind is StateKind.LINE else None
            if shapes and fixed:  # a value fixed is exact: its kind needs no reading
                shapes = {name: shape for name, shape in shapes.items() if name not in fixed}
            likely = None
            if self.kind in CALL_KINDS:
                text = self._written.decode(errors="replace")
                frame = self.expected.call_names.get(text)
                required = self.expected.call_required.get(text, frozenset())
                fixed = self.expected.call_fixed.get(text)  # the parameters passed
                likely = self.expected.call_likely.get(text)
            before = self.expected.before if self.kind in LINE_KINDS else None
            if diff is True and before is not None and fixed:  # a diff cannot show a variable
                # whose fixed value it already had (``val = d.get(k)``, None again)
                hidden |= {name for name, text in fixed.items() if before.get(name) == text}
                if frame is None and hidden:  # any name of the code, but those
                    frame = frozenset(n.decode(errors="replace") for n in self.source.names.full)
            names = self.source.names if frame is None else self.source.names.within(frame, hidden)
            self._cursor = JsonCursor(
                "object",
                allow_diff=bool(arg) and diff is not False,
                names=names,
                need_diff=diff is True,
                before=None if before is None else Before(before),
                fixed=None if fixed is None else _json_texts(fixed),
                required=frozenset(n.encode() for n in required),
                shapes=shapes,
                likely=likely,
            )
        elif kind == "string":
            returned = self.expected.returned if self.kind is StateKind.RETURN else None
            want = None if returned is None else _json_texts({"": returned})[b""]
            shape = None
            if self.kind is StateKind.RETURN and want is None:  # a value computed is exact
                text = self._written.decode(errors="replace")
                shape = self.expected.return_shapes.get(text)
            self._cursor = JsonCursor("string", want=want, shape=shape)
