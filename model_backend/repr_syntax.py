"""Whether a value's text, written a character at a time, can still be a whole repr.

Why: the small model sometimes closes a value half-written (``{'La'``, ``(0, '())``, ``{5``),
writes on past its end (``{}'.``) or mixes a set with a dict (``{87.29, 3: 4}``). The tracer
writes a builtin value as exactly its ``repr`` (:mod:`neural_debugger.tracer.values`): a string
literal is closed, brackets are balanced, a brace holds set elements or dict entries but not
both, and nothing follows the closing bracket or quote. So where a value starts the way a
builtin's repr starts, the grammar lets it end only where that repr could end, and not write
past it.

What a :class:`ReprSyntax` checks, by the value's first character:

* ``[``, ``(``, ``{``: a container. Every bracket closes with its own kind, and the value ends
  with its outer bracket. Its elements are read one by one: a number (``-1.5e-07``, and in
  parentheses a complex's two parts) and a string literal (backslash escapes read) are whole
  and followed at once by a comma, a colon or the closer (``[1 ]``, ``['a' 'b']``,
  ``[1.5.5]`` are not reprs); a bracket is read the same way inside; in braces, every element is
  a ``key: value`` entry or none is (``{}`` is a dict), and no element is empty (``{1, }``,
  ``{: 2}``); Python's own ``", "`` and ``": "`` stand between the elements, no other space;
* a quote (``'`` or ``"``), or ``b`` and a quote: one string literal, ending with its quote;
* a digit, or ``-`` and a digit: a number (digits, one ``.``, an exponent, ``j``), ending on
  a digit or ``j``;
* anything else (``True``, ``None``, ``set()``, ``Point(x=1)``, ``<function f>``, a custom
  repr): not read, any text.

Where the code says what kind a value is (:mod:`.value_shapes`, :mod:`.parameter_uses`), the
first character alone does not always tell the kind: ``{`` starts a dict and a set, a digit an
``int`` and a ``float``. Given the kinds (``kinds``), a brace holds what the one of ``dict``
and ``set`` among them holds, and a number is an ``int`` (digits only) or a ``float`` (with a
point or an exponent) where only one of the two is among them.

Inside a container any object's repr may stand as an element (``[Point(x=1), <function
f>]``): there only its brackets, its string literals and the container's own ``,`` and ``:``
are read, at any spacing (``Vec(1,2)``). So an object whose own ``__repr__`` leaves a bracket
or a quote open, or writes a ``,`` with no space or a ``:`` at the container's own level, reads
as not ended inside a container. No value of the project's traces does: all 51,360 uncut values
of the tracked held-out sets and 2.9 million values of 16,000 freshly traced training programs
read as whole (``tests/model_backend/test_repr_syntax.py`` traces more). A value cut at
``MAX_VALUE_CHARS`` ends with the cut marker, which the grammar writes apart from this check.
"""

from __future__ import annotations

from collections.abc import Set

_CLOSERS = {"[": "]", "(": ")", "{": "}"}
_NUMBER = frozenset("0123456789.e+-j")

# Each bracket on the stack is five letters: a brace's kind ("?" not known yet, "d" a dict, "s"
# a set; "-" for a bracket) and what its element holds so far ("o" nothing yet: just opened, "e"
# nothing: after a comma, "k" a key or a set element, "c" a key and its colon, "v" a key, colon
# and value; "-" for a bracket); what the element being read is (below); and whether the
# bracket is a builtin container's ("b": Python writes ", " and ": " between its elements) or
# one inside an object's own repr ("l": any spacing); and the bracket that closes it.
_START = "s"  # nothing yet (after the opener, or a separator and its space)
_SPACE = "_"  # after a separator of a builtin container: its one space comes next
_MINUS = "m"  # a minus: a number (or -inf) starts
_DIGITS = "n"  # a number
_QUOTED = "Q"  # a string literal, still open
_INNER = "N"  # a bracket, still open
_ENDED = "q"  # a number, string or bracket that has ended: a comma, colon or closer follows
_FREE = "f"  # any other object's repr: only its brackets, quotes and separators are read
_OPENED, _EMPTY, _KEY, _COLON, _VALUE = "o", "e", "k", "c", "v"


def _only(kinds: Set[str] | None, one: str, other: str) -> bool:
    return kinds is not None and one in kinds and other not in kinds


class ReprSyntax:
    """The syntax of one value's text so far (see the module docstring)."""

    __slots__ = (
        "escape",
        "kinds",
        "levels",
        "mode",
        "number",
        "part",
        "quote",
        "run",
        "sig",
        "tail",
    )

    def __init__(self, kinds: Set[str] | None = None) -> None:
        self.kinds = kinds  # the builtin kinds the code says the value is (None: any)
        self.mode = "start"  # start, bytes, number, sign, nested, done, free
        self.levels: list[str] = []  # each bracket still open: its letters (above), innermost last
        self.quote = ""  # the quote of the string literal being read ("": none)
        self.escape = False  # the last character read was a backslash in a literal
        self.tail = ""  # the last character of the number being read
        self.part = ""  # what the number's part (a complex has two) has: "." and "e" if any
        self.run = 0  # digits since the part's start, its point or its exponent's sign
        self.sig = 0  # significant digits of the part's mantissa (leading zeros not counted)
        # what the value, a number, must be: "int", "float" (then "float+" once its point or
        # exponent is written) or "" (either)
        self.number = ""

    def copy(self) -> ReprSyntax:
        other = ReprSyntax.__new__(ReprSyntax)
        other.kinds, other.mode, other.quote, other.escape = (
            self.kinds,
            self.mode,
            self.quote,
            self.escape,
        )
        other.tail, other.number, other.part = self.tail, self.number, self.part
        other.run, other.sig = self.run, self.sig
        other.levels = list(self.levels)
        return other

    def feed(self, char: str) -> bool:
        """Read one character; False where no repr of the value's kind goes on with it."""
        mode = self.mode
        if mode == "free":
            return True
        if mode == "done":
            return False
        if mode == "start":
            return self._first(char)
        if mode == "bytes":
            if char in "'\"":
                self.mode, self.quote = "nested", char
            else:
                self.mode = "free"  # a name that starts with b: not read
            return True
        if mode == "sign":
            if char.isdigit():
                self.mode = "number"
                self._start_number(char)
                return True
            self.mode = "free"  # -inf, -nan
            return self.number != "int"
        if mode == "number":
            return self._number(char)
        if self.quote:
            return self._quoted(char)
        return self._nested(char)

    def ended(self) -> bool:
        """Whether the text read so far is a whole value of its kind."""
        if self.mode == "number":
            return self._can_end(plain=True) and self.number != "float"
        return self.mode in ("done", "free")

    def _first(self, char: str) -> bool:
        if char in _CLOSERS:
            self.mode = "nested"
            self._open(char, loose=False)
            if char == "{" and _only(self.kinds, "dict", "set"):
                self.levels[-1] = "d" + self.levels[-1][1:]  # a dict, as the code says
            elif char == "{" and _only(self.kinds, "set", "dict"):
                self.levels[-1] = "s" + self.levels[-1][1:]
        elif char in "'\"":
            self.mode, self.quote = "nested", char
        elif char == "b":
            self.mode = "bytes"
        elif char == "-" or char.isdigit():
            if _only(self.kinds, "int", "float"):
                self.number = "int"
            elif _only(self.kinds, "float", "int"):
                self.number = "float"
            self.mode = "sign" if char == "-" else "number"
            self._start_number(char)
        else:
            self.mode = "free"
        return True

    def _number(self, char: str) -> bool:
        if self.number == "int" and not char.isdigit():
            return False
        if self.number.startswith("float"):
            if char == "j":
                return False
            if char in ".e":
                self.number = "float+"  # its point or exponent written
        return self._digit(char, complex_parts=False)

    def _start_number(self, char: str) -> None:
        """A number's first character: a digit, or a minus before one."""
        self.tail, self.part = char, ""
        self.run = self.sig = 0
        if char.isdigit():
            self.run, self.sig = 1, int(char != "0")

    def _digit(self, char: str, complex_parts: bool) -> bool:
        """One more character of a number (``12``, ``-1.5e-07``, ``2j``, and inside
        parentheses a complex's two parts, ``(1.5-2j)``), after at least one digit. A number is
        a Python literal (no leading zero), and a float reads as Python's shortest round-trip
        ``repr`` can: at most 17 significant digits, a point after at most 16 digits (from 1e16
        on it is written with an exponent), at most 20 digits after it, and an exponent of a
        sign and at most three digits (``1e-05``, ``1e+16``, ``5e-324``). Where a text differs
        from the repr only in its layout (``8.50``, ``1e-5``), the value is the same, and it is
        let stand: refusing it would make a greedy decoder write another value (``8.505``)."""
        tail, part = self.tail, self.part
        if tail == "j":
            ok = False
        elif char.isdigit():
            if "e" in part:
                ok = tail != "e" and self.run < 3
            elif "." in part:
                ok = self.run < 20 and self.sig < 17
            else:
                ok = not (self.run == 1 and tail == "0")  # an int has any number of digits
        elif char == ".":
            ok = tail.isdigit() and "." not in part and "e" not in part and self.run <= 16
        elif char == "e":
            ok = "e" not in part and self.sig <= 17 and self._can_end(plain=False)
        elif char in "+-":
            after_e = tail == "e"
            ok = after_e or (complex_parts and "j" not in part and self._can_end(plain=False))
        else:
            ok = char == "j" and self._can_end(plain=False)
        if not ok:
            return False
        if char.isdigit():
            self.run += 1
            if "e" not in part and (self.sig or char != "0"):
                self.sig += 1
        elif char in ".e":
            self.part += char
            self.run = 0
        elif tail != "e":  # a complex's second part: it ends with its j
            self.part, self.run, self.sig = "j", 0, 0
        self.tail = char
        return True

    def _can_end(self, plain: bool) -> bool:
        """Whether the number read so far can end here: as a whole ``int`` or ``float``
        (``plain``), or as a complex's part or a float's mantissa."""
        tail, part = self.tail, self.part
        if tail == "j":
            return plain
        return tail.isdigit() and not ("j" in part and plain)

    def _open(self, char: str, loose: bool) -> None:
        kind = "?" + _OPENED if char == "{" else "--"
        self.levels.append(kind + _START + "lb"[not loose] + _CLOSERS[char])

    def _element(self, letter: str) -> None:
        level = self.levels[-1]
        self.levels[-1] = level[:2] + letter + level[3:]

    def _quoted(self, char: str) -> bool:
        if self.escape:
            self.escape = False
        elif char == "\\":
            self.escape = True
        elif char == self.quote:
            self.quote = ""
            if not self.levels:
                self.mode = "done"
            elif self.levels[-1][2] == _QUOTED:
                self._element(_ENDED)
        return True

    def _nested(self, char: str) -> bool:
        level = self.levels[-1]
        element, builtin, closer = level[2], level[3] == "b", level[4]
        if element == _SPACE:
            if char == " ":
                self._element(_START)
                return True
            if char != ")":  # (1,): a one-element tuple closes after its comma
                return False
            element = _START
        if element == _DIGITS:
            if char in _NUMBER:
                return self._digit(char, complex_parts=closer == ")")
            if not self._can_end(plain=True):
                return False
            element = _ENDED
            self._element(element)
        elif element == _MINUS:
            if char.isdigit():
                self._start_number(char)
                self._element(_DIGITS)
                return True
            element = _FREE  # -inf, -nan
            self._element(element)
        if char in ",:)]}":
            return self._separator(char, element)
        if element == _ENDED:
            return False  # a literal goes on only with a comma, a colon or its closer
        if builtin and closer == "}" and char != " ":
            self._brace_content()
        if element == _START and not builtin:
            self._element(_FREE)  # inside an object's own repr: read for brackets and quotes
        elif element == _START:
            if char == " ":
                return False  # no space but the one after a separator
            self._element(_QUOTED if char in "'\"" else _INNER if char in _CLOSERS else _FREE)
            if char.isdigit():
                self._start_number(char)
                self._element(_DIGITS)
            elif char == "-":
                self._element(_MINUS)
        if char in "'\"":
            self.quote = char
        elif char in _CLOSERS:
            self._open(char, loose=not builtin or element == _FREE)
        return True

    def _separator(self, char: str, element: str) -> bool:
        """A comma, colon or closer where the element being read is ``element``."""
        if char in ",:" and element == _START:
            return False  # an empty element, or a colon without its key
        level = self.levels[-1]
        builtin, closer = level[3] == "b", level[4]
        in_brace = closer == "}" and builtin
        mark = self._brace_mark(char) if in_brace else "sep"
        if not mark:
            return False
        if char == ":" and mark != "sep":
            return element == _FREE  # a colon inside an object's own repr
        if char == ":" and not in_brace and element != _FREE and builtin:
            return False
        if char in ",:":
            if mark == "sep":
                self._element(_SPACE if builtin else _START)
            return True
        if char != closer:
            return False
        self.levels.pop()
        if not self.levels:
            self.mode = "done"
        elif self.levels[-1][2] == _INNER:
            self._element(_ENDED)
        return True

    def _brace_content(self) -> None:
        """A character of an element's key, value or set element, read in the brace itself."""
        level = self.levels[-1]
        kind, held, rest = level[0], level[1], level[2:]
        if held in (_OPENED, _EMPTY):
            self.levels[-1] = kind + _KEY + rest
        elif held == _COLON:
            self.levels[-1] = kind + _VALUE + rest

    def _brace_mark(self, char: str) -> str:
        """A ``:``, ``,`` or ``}`` in a brace itself: "sep" where it separates the brace's
        elements (or closes it), "inner" for a colon inside a dict's value, "" where the
        brace's elements do not allow it."""
        level = self.levels[-1]
        kind, held, rest = level[0], level[1], level[2:]
        if char == ":":
            if held == _KEY and kind != "s":
                self.levels[-1] = "d" + _COLON + rest
                return "sep"
            return "inner" if held == _VALUE else ""
        if held == _OPENED:  # {}: an empty dict
            return "sep" if char == "}" and kind != "s" else ""
        if held in (_EMPTY, _COLON):
            return ""  # an empty element, or a key without its value
        if held == _KEY:
            if kind == "d":
                return ""  # a dict's entry without its colon
            kind = "s"
        self.levels[-1] = kind + _EMPTY + rest
        return "sep"


def is_whole(text: str, kinds: Set[str] | None = None) -> bool:
    """Whether ``text`` reads as a whole value (:class:`ReprSyntax`), of one of ``kinds``
    where they are given."""
    syntax = ReprSyntax(kinds)
    return all(syntax.feed(char) for char in text) and syntax.ended()
