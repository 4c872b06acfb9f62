"""Which source lines can come next inside one frame, read from the code's bytecode.

A debugger that steps from line L of a function stops next on a line the interpreter can reach
from L without passing another line: ``total = 0`` is always followed by the line below it, a
``for`` header by its body or by what follows the loop. :class:`LineFlow` compiles the code
context (it never runs it) and walks each code object's instructions to list, for every line,
the lines whose ``line`` trace event can come next in the same frame, and, for every line a
``call`` event shows, the lines the frame can start on. The decoder then lets a predicted
line state show only those lines (:func:`expect`, which adds what the language itself fixes).

The lists are a superset of what CPython's tracer reports, so the constraint never rules out
the real next line: a line event fires when execution reaches an instruction of another line,
jumps backwards, or comes from an instruction without a line; every jump, fall-through and
exception handler counts as a way on; code objects that share a line add up. Code that does
not compile gives no lists, and the decoder no constraint.
"""

from __future__ import annotations

import dis
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import CodeType

from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import LineTracker, SourceMap

# Instructions after which execution does not go on to the next one.
_NO_FALL_THROUGH = frozenset(
    {
        "RETURN_VALUE",
        "RETURN_CONST",
        "RAISE_VARARGS",
        "RERAISE",
        "JUMP_FORWARD",
        "JUMP_BACKWARD",
        "JUMP_BACKWARD_NO_INTERRUPT",
        "JUMP_ABSOLUTE",
        "JUMP",
        "JUMP_NO_INTERRUPT",
    }
)
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_STEPS = (ActionKind.STEP_INTO, ActionKind.STEP_OVER)


class LineFlow:
    """For each line of a code context: the lines one frame can show next (see the module)."""

    def __init__(self, code: str) -> None:
        self.after: dict[int, set[int]] = {}  # a line -> the lines that can follow it
        self.starts: dict[int, set[int]] = {}  # a call event's line -> the frame's first lines
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. invalid escape sequences
                top = compile(code, "<context>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return
        for unit in _code_objects(top):
            self._read(unit)

    def following(self, line: int) -> frozenset[int] | None:
        """Lines that can follow ``line`` in its frame (None: not known)."""
        found = self.after.get(line)
        return frozenset(found) if found else None

    def first_lines(self, call_line: int) -> frozenset[int] | None:
        """Lines a frame whose call event shows ``call_line`` can start on (None: not known)."""
        found = self.starts.get(call_line)
        return frozenset(found) if found else None

    def _read(self, unit: CodeType) -> None:
        bytecode = dis.Bytecode(unit)
        instructions = list(bytecode)
        if not instructions:
            return
        at = {ins.offset: k for k, ins in enumerate(instructions)}
        lines = [(ins.positions.lineno if ins.positions else None) or None for ins in instructions]
        ways: list[list[int]] = [[] for _ in instructions]
        for k, ins in enumerate(instructions):
            if ins.opname not in _NO_FALL_THROUGH and k + 1 < len(instructions):
                ways[k].append(k + 1)
            if ins.opcode in _JUMPS and isinstance(ins.argval, int) and ins.argval in at:
                ways[k].append(at[ins.argval])
        for entry in getattr(bytecode, "exception_entries", ()):
            if entry.target not in at:
                continue
            handler = at[entry.target]
            for k, ins in enumerate(instructions):
                if entry.start <= ins.offset < entry.end:
                    ways[k].append(handler)
        for line in {n for n in lines if n is not None}:
            starts = [k for k, n in enumerate(lines) if n == line]
            self.after.setdefault(line, set()).update(_reached(starts, lines, ways))
        # The call event comes from RESUME (after any cell set-up) and shows its line: the def
        # line, or co_firstlineno (the first decorator). The first instruction after it with a
        # line fires that line, whichever it is (a class body starts on its class line).
        # A generator's frame also starts again (a call event on the line that yielded) at each
        # later RESUME, and goes on from there.
        resumes = [k for k, ins in enumerate(instructions) if ins.opname == "RESUME"] or [0]
        for k in resumes:
            first: set[int] = set()
            for j in ways[k]:
                first |= _reached([j], lines, ways, entering=True)
            shown = {unit.co_firstlineno, lines[k]} if k == resumes[0] else {lines[k]}
            if k != resumes[0] and lines[k] is not None:
                first |= _reached([k], lines, ways)
            for line in shown:
                if line is not None:
                    self.starts.setdefault(line, set()).update(first)


def _reached(
    starts: list[int], lines: list[int | None], ways: list[list[int]], entering: bool = False
) -> set[int]:
    """Lines whose line event can fire first once execution leaves ``starts`` (instructions of
    one line; ``entering``: the frame starts at ``starts[0]`` and no line has fired yet).

    As CPython 3.11 traces: an instruction fires its line when the instruction executed before
    it had another line or none, or when it was reached by a jump backwards."""
    if entering and lines[starts[0]] is not None:
        return {lines[starts[0]]}  # type: ignore[set-item]
    first = None if entering else lines[starts[0]]
    todo = [(k, first) for k in starts]
    seen = set(todo)
    found: set[int] = set()
    while todo:
        k, last = todo.pop()
        for j in ways[k]:
            target = lines[j]
            if target is not None and (last is None or target != last or j <= k):
                found.add(target)
                continue
            item = (j, last if target is not None else None)
            if item not in seen:
                seen.add(item)
                todo.append(item)
    return found


def _code_objects(top: CodeType) -> Iterator[CodeType]:
    todo = [top]
    while todo:
        unit = todo.pop()
        yield unit
        todo.extend(c for c in unit.co_consts if isinstance(c, CodeType))


@dataclass(frozen=True)
class Expected:
    """What the code and the action fix about the next state before the model writes a token."""

    # the source lines a state of each kind may show (a kind not listed: any line)
    lines: Mapping[StateKind, frozenset[str]] = field(default_factory=dict)
    diff: bool | None = None  # a line state's locals: a diff, whole, or either (None)

    def allows(self, state: State) -> bool:
        """Whether ``state`` keeps to what is expected."""
        if state.kind in self.lines and state.src not in self.lines[state.kind]:
            return False
        return self.diff is None or state.kind is not StateKind.LINE or state.diff == self.diff


_SHOWN_AT = tuple(k for k in StateKind if not k.is_inverse and not k.is_exit)


def expect(
    flow: LineFlow,
    source: SourceMap,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    action: Action,
) -> Expected:
    """What the next state must be, from the language's rules and the code (see
    :mod:`neural_debugger.tracer.tree`):

    * a breakpoint stops on its own source line, and shows the whole locals;
    * a call state shows a line where a frame of the code starts (a ``def``, a ``class``, a
      comprehension, or a line a generator resumes on);
    * a line state after a return or an exception state shows the whole locals;
    * a step into or over from a line or a call state that stops on a line stays in that frame:
      its locals are a diff, and its line is one the frame's flow allows next.
    """
    last = states[-1]
    if action.kind.is_inverse or last.kind.is_inverse:
        return Expected()
    if action.kind is ActionKind.BREAKPOINT and action.target is not None:
        return Expected(dict.fromkeys(_SHOWN_AT, frozenset({action.target})), diff=False)
    lines = {StateKind.CALL: _texts(source, flow.starts)} if flow.starts else {}
    if last.kind in (StateKind.RETURN, StateKind.EXCEPTION):
        return Expected(lines, diff=False)
    if action.kind not in _STEPS or last.kind not in (StateKind.LINE, StateKind.CALL):
        return Expected(lines)
    following = _next_lines(flow, source, states, actions)
    if following:
        lines[StateKind.LINE] = following
    return Expected(lines, diff=True)


def _texts(source: SourceMap, numbers: Iterable[int]) -> frozenset[str]:
    return frozenset(source.lines[n - 1] for n in numbers if 0 < n <= len(source.lines))


def _next_lines(
    flow: LineFlow, source: SourceMap, states: tuple[State, ...], actions: tuple[Action, ...]
) -> frozenset[str] | None:
    """The texts of the lines the last state's frame can show next (None: not known)."""
    tracker = LineTracker(source)
    located = None
    for index, state in enumerate(states):
        located = tracker.locate(state, actions[index - 1] if index else None)
    if located is None or located.line is None:
        return None
    if states[-1].kind is StateKind.LINE:
        lines = flow.following(located.line)
    else:
        lines = flow.first_lines(located.line)
    return _texts(source, lines) if lines is not None else None
