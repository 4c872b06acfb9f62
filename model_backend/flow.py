"""What the code fixes about the next state: which lines can come next inside one frame, and
which variables a frame can show, read from the code's bytecode.

A debugger that steps from line L of a function stops next on a line the interpreter can reach
from L without passing another line: ``total = 0`` is always followed by the line below it, a
``for`` header by its body or by what follows the loop. :class:`LineFlow` compiles the code
context (it never runs it) and walks each code object's instructions to list, for every line,
the lines whose ``line`` trace event can come next in the same frame, and, for every line a
``call`` event shows, the lines the frame can start on; and, for every code object, the
variables its frame can hold, and, for a function, which of them can be bound when a line's
event fires (no path from its call to ``x = f()`` stores ``x`` before that line, so its state
cannot show ``x``); and, for every line, the variables its own instructions store or delete,
so that a step from it cannot change a variable holding an immutable value it does not store.
:func:`expect` turns these, with what the language itself fixes (diffs, breakpoints, the
inverse tree), into the :class:`Expected` the decoder's grammar keeps to.

The lists are a superset of what CPython's tracer reports, so the constraint never rules out
the real next line: a line event fires when execution reaches an instruction of another line,
jumps backwards, or comes from an instruction without a line; every jump, fall-through and
exception handler counts as a way on; code objects that share a line add up. Code that does
not compile gives no lists, and the decoder no constraint.
"""

from __future__ import annotations

import ast
import dis
import functools
import inspect
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import CodeType
from typing import TypeVar, cast

from neural_debugger.model_backend.bindings import bound_once
from neural_debugger.model_backend.branches import (
    Head,
    Undecided,
    Values,
    evaluate,
    heads,
    in_order,
    literal,
    own_names,
    way,
    way_after_turns,
)
from neural_debugger.model_backend.call_sites import CallSites
from neural_debugger.model_backend.computed import (
    Computing,
    Effects,
    Made,
    after_comprehension,
    comprehension_lines,
    computing_lines,
    effects,
    shown_text,
)
from neural_debugger.model_backend.expressions import holds_a_set
from neural_debugger.model_backend.handed_back import (
    Appended,
    Copied,
    Receiver,
    appended_text,
    appends,
    copies,
    made_generators,
    receivers,
    returns,
)
from neural_debugger.model_backend.module_constants import ModuleConstants, plain_classes
from neural_debugger.model_backend.parameter_uses import parameter_kinds
from neural_debugger.model_backend.passed_arguments import PassedArguments, only_read_everywhere
from neural_debugger.model_backend.value_shapes import (
    CodeUnit,
    Shape,
    ValueShapes,
    code_unit,
    line_shapes,
    reraising_lines,
    union,
)
from neural_debugger.protocol import Action, ActionKind, State, StateKind, standalone
from neural_debugger.protocol.source_map import LineTracker, Located, SourceMap
from neural_debugger.protocol.tokens import DIFF_MARKER_KEY
from neural_debugger.tracer.values import (
    CUT_MARKER,
    MAX_VARIABLES,
    MORE_VARIABLES_KEY,
    render_value,
)

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
# Names of builtins through which code can bind variables no instruction of it stores.
_DYNAMIC = frozenset({"exec", "eval", "locals", "vars", "globals", "__import__"})
# Attributes through which code can reach a frame's or a module's variables from outside.
_FRAME_ACCESS = frozenset(
    {"_getframe", "currentframe", "f_locals", "f_globals", "f_back", "modules"}
)
# Instructions that bind, unbind or clear a variable (the 3.12+ forms included).
_REBINDING = (
    "STORE_FAST",
    "STORE_NAME",
    "STORE_DEREF",
    "STORE_GLOBAL",
    "DELETE_FAST",
    "DELETE_NAME",
    "DELETE_DEREF",
    "DELETE_GLOBAL",
    "LOAD_FAST_AND_CLEAR",
)
# Instructions a line may hold and still run no code but the builtins' own operations on the
# values it loads (no call, no attribute, no store into an item, no iteration): where those
# values are plain literals, such a line changes no list or dict it does not rebind.
_INERT = frozenset(
    {"NOP", "RESUME", "CACHE", "EXTENDED_ARG", "POP_TOP", "COPY", "SWAP", "PUSH_NULL"}
    | {"LOAD_FAST", "LOAD_CONST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLOSURE"}
    | {"STORE_FAST", "STORE_NAME", "STORE_DEREF", "LOAD_FAST_CHECK", "RETURN_VALUE"}
    | {"COMPARE_OP", "IS_OP", "CONTAINS_OP", "BINARY_OP", "BINARY_SUBSCR", "BUILD_SLICE"}
    | {"UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE", "UNPACK_SEQUENCE"}
    | {"BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_MAP", "BUILD_CONST_KEY_MAP"}
    | {"LIST_EXTEND", "SET_UPDATE", "LIST_APPEND", "FORMAT_VALUE", "BUILD_STRING"}
    | {"POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE"}
    | {"POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE"}
    | {"POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", "POP_JUMP_IF_FALSE"}
    | {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "JUMP_FORWARD"}
    | {"JUMP_BACKWARD", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP", "JUMP_BACKWARD_NO_INTERRUPT"}
)
_LOADS = frozenset({"LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLOSURE"})
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_STEPS = (ActionKind.STEP_INTO, ActionKind.STEP_OVER)
_STEPS_ON = (*_STEPS, ActionKind.STEP_RETURN)  # actions that stop at the next return at least


class LineFlow:
    """For each line of a code context: the lines one frame can show next (see the module)."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.after: dict[int, set[int]] = {}  # a line -> the lines that can follow it
        # ... with no exception raised on the way (no exception event between them)
        self._after_normally: dict[int, set[int]] = {}
        # the same in the frames that can stand on a line with a call made there: not a class
        # body on its own first line (only its ``__module__`` and ``__qualname__`` are set
        # there), whose next line is the body's, where the frame that ran the ``class``
        # statement goes on past it
        self._caller_after: dict[int, set[int]] = {}
        self._caller_after_normally: dict[int, set[int]] = {}
        # ... split by the frame's kind: a comprehension's or a lambda's (an anonymous frame,
        # True) or a function's, a class body's or the module's (False)
        self._kind_after: dict[tuple[bool, bool, int], set[int]] = {}  # (anonymous, normally)
        self.starts: dict[int, set[int]] = {}  # a call event's line -> the frame's first lines
        # each code object's instructions, their lines and normal ways, for walks from a
        # line event (:meth:`calls_before_line`); and those walks' answers by line
        self._walks: list[tuple[list[dis.Instruction], list[int | None], list[list[int]], int]] = []
        self._calls_before_line: dict[int, bool] = {}
        self._sure: frozenset[tuple[int, int, int, int]] | None = None  # see _sure_calls
        self._unit_names: list[str] = []  # each code object's name
        # the variables each code object's frame can show (None: any), and which code objects
        # have instructions on a line or start a frame on it
        self._names: list[frozenset[str] | None] = []
        self._dynamic = False  # code that binds names no instruction stores (exec, locals())
        self._tree: ast.Module | None = None  # the code's syntax tree, where it compiles
        self._plain_classes: frozenset[int] = frozenset()
        self._with_heads: dict[int, set[int]] | None = None  # a line -> its enclosing withs
        self._on_line: dict[int, set[int]] = {}
        self._starting: dict[int, set[int]] = {}
        self._call_names: dict[str, frozenset[str]] | None = None
        self._likely: dict[str, dict[str, frozenset[str]]] | None = None
        self._passed_texts: dict[str, dict[str, dict[str, str]]] = {}  # by the entry's text
        self._def_texts: dict[int, str] | None = None
        # what the code returns and binds, by the entry's text (:meth:`_value_shapes`); each
        # code object as :func:`.value_shapes.line_shapes` reads it
        self._shapes_by_entry: dict[str | None, ValueShapes | None] = {}
        self._return_shapes: dict[tuple[str | None, bool], dict[str, Shape]] = {}
        self._code_units: list[CodeUnit] = []
        self._before: dict[int, set[int]] | None = None
        # for each code object of a function: a line -> the variables that can be bound when
        # its line event fires, and a call event's line -> those bound at that event (None for
        # a module or a class body, whose names calls can bind)
        self._bound: list[tuple[dict[int, frozenset[str]], dict[int, frozenset[str]]] | None] = []
        # for each code object whose ``_bound`` is known: its paths, walked again for the
        # variables bound at a line's first event (:meth:`names_first_at`); and, for code made
        # by another's instructions, the line those instructions stand on
        self._paths: list[_Paths | None] = []
        self._made_on: dict[int, int] = {}
        # for each code object of a function: the variables only ``def`` or ``lambda`` bind,
        # with the text of the function they hold (:meth:`defined_at`)
        self._defined: list[dict[str, str]] = []
        self._renaming = False  # code that may give a function another name
        self._spoiled = frozenset[str]()  # names inner functions store or any code deletes
        # the lines from which a frame can return (or yield) before another line fires
        self._returning: set[int] = set()
        # a line -> the variables its instructions bind or unbind; and those that code other
        # than a frame's current line can rebind (None: any, the code reaches frames)
        self._rebound_on: dict[int, set[str]] = {}
        self._rebound_anywhere: set[str] | None = None
        # a line -> the names it loads, where it holds only :data:`_INERT` instructions
        # (a line absent: it holds others)
        self._inert_loads: dict[int, set[str]] = {}
        self._stirring: set[int] = set()  # lines holding other instructions
        # for each code object of a function: a line -> the variables bound whichever way its
        # line event is reached, and a call event's line -> those bound at that event (None
        # for a module or a class body); and, for each inner function's code (by id), its
        # free variables its maker had surely bound when it made the function
        self._surely: list[tuple[dict[int, frozenset[str]], dict[int, frozenset[str]]] | None] = []
        self._made_with: dict[int, frozenset[str]] = {}
        self._functions: set[int] = set()  # the code objects that are functions' (optimized)
        self._call_required: dict[bool, dict[str, frozenset[str]]] = {}
        # the module's code, kept while reading (see :meth:`_bound_in_module`)
        self._module_code: _ModuleCode | None = None
        # how many instructions of any code bind or delete each name as a global or by name
        # (-1: one binds it with ``global``), for the module's constants
        self._name_stores: dict[str, int] = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # e.g. invalid escape sequences
                top = compile(code, "<context>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
            return
        tree = self._tree = ast.parse(code)  # it compiled, so it parses
        self._plain_classes = plain_classes(tree)
        units: list[tuple[CodeType, dis.Bytecode]] = [
            (unit, _Decoded(unit)) for unit in _code_objects(top)
        ]
        self._code_units = [code_unit(unit, bytecode) for unit, bytecode in units]
        self._made_on = _made_on(units)
        self._renaming = _renames_functions(units)
        nonlocal_stores = _stored_from_inner_functions(units)
        unbindable = _deleted_from_anywhere(units)
        self._spoiled = frozenset(nonlocal_stores | unbindable)
        for index, (unit, bytecode) in enumerate(units):
            self._read(unit, bytecode, index, nonlocal_stores, unbindable)
        self._made_with.clear()  # keyed by the ids of code objects no longer held
        self._name_frames(units)
        if not self._dynamic:
            self._read_rebinding(units)
        if self._module_code is not None and self._rebound_anywhere is not None:
            self._bound_in_module(units)
        self._module_code = None

    def enclosing_withs(self, lines: Iterable[int]) -> frozenset[int]:
        """The lines of the ``with`` statements whose bodies hold any of ``lines``: a frame
        that ends by an exception there calls each one's ``__exit__`` on its own line."""
        heads = self._withs_around()
        return frozenset(h for line in lines for h in heads.get(line, ()))

    def with_bodies(self, heads: Iterable[int]) -> frozenset[int]:
        """The lines of the bodies of the ``with`` statements on ``heads`` (none for other
        lines)."""
        wanted = set(heads)
        return frozenset(line for line, on in self._withs_around().items() if on & wanted)

    def _withs_around(self) -> dict[int, set[int]]:
        """A line -> the lines of the ``with`` statements whose bodies hold it."""
        if self._with_heads is None:
            self._with_heads = {}
            for node in ast.walk(self._tree) if self._tree is not None else ():
                if isinstance(node, ast.With | ast.AsyncWith) and node.body:
                    for line in range(node.body[0].lineno, (node.end_lineno or 0) + 1):
                        self._with_heads.setdefault(line, set()).add(node.lineno)
        return self._with_heads

    def module_only(self, line: int) -> bool:
        """Whether only the module's own code has instructions on ``line``: its line events
        are the module frame's (no function, class body, lambda or comprehension runs there)."""
        return self._on_line.get(line) == {0}

    def module_runs(self, line: int) -> bool:
        """Whether the module's own code has instructions on ``line`` (others may too)."""
        return 0 in self._on_line.get(line, ())

    def in_the_module(self, lines: Iterable[int]) -> bool:
        """Whether ``lines`` (at least one) are all lines only the module's own code runs, so
        a frame standing on one of them is the module's (see :meth:`module_only`)."""
        lines = list(lines)
        return bool(lines) and all(self.module_only(n) for n in lines)

    @functools.cached_property
    def module_constants(self) -> ModuleConstants:
        """The module's names whose value the code fixes (:mod:`.module_constants`)."""
        dynamic = self._rebound_anywhere is None
        stores = None if dynamic else (lambda name: self._name_stores.get(name, 0))
        module_names = self._names[0] if self._names else None
        tree, sites = self._tree, self.call_sites

        def kept(name: str, value: object) -> bool:
            if tree is None:
                return False
            return only_read_everywhere(tree, name, value, sites.builtins_kept, sites.functions)

        return ModuleConstants(self._tree, self._plain_classes, stores, module_names, kept)

    @functools.cached_property
    def branch_heads(self) -> dict[int, Head]:
        """The ``if``, ``while`` and ``for`` heads whose way values can fix (:mod:`.branches`)."""
        return heads(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def local_names(self) -> dict[int, frozenset[str]]:
        """By line, the own names of the function whose frame runs it (a line not listed:
        the module's or a class body's)."""
        found: dict[int, frozenset[str]] = {}
        if self._tree is None:
            return found
        functions = [
            node
            for node in ast.walk(self._tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ]  # outer functions first: an inner one's lines are its own
        for function in functions:
            names = own_names(function)
            for line in range(function.body[0].lineno, (function.end_lineno or 0) + 1):
                found[line] = names
        return found

    @functools.cached_property
    def comprehensions(self) -> dict[int, Made]:
        """The lines whose comprehension's own frame the values on them fix
        (:func:`.computed.comprehension_lines`)."""
        return comprehension_lines(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def calling_no_code(self) -> frozenset[int]:
        """The lines of :attr:`comprehensions` whose calls outside the comprehension call
        builtins the code leaves unbound, or methods, in code that defines no class (whose
        methods would be the program's own code): no frame of the program runs there but the
        comprehension's."""
        if self._tree is None:
            return frozenset()
        classes = any(isinstance(node, ast.ClassDef) for node in ast.walk(self._tree))
        calls: dict[int, list[ast.Call]] = {}
        for node in ast.walk(self._tree):
            if isinstance(node, ast.Call) and node.lineno in self.comprehensions:
                calls.setdefault(node.lineno, []).append(node)
        found = set()
        for line, made in self.comprehensions.items():
            inside = set(ast.walk(made.node))
            if all(
                (isinstance(c.func, ast.Name) and c.func.id in self.call_sites.builtins_kept)
                or (isinstance(c.func, ast.Attribute) and not classes)
                for c in calls.get(line, ())
                if c not in inside
            ):
                found.add(line)
        return frozenset(found)

    @functools.cached_property
    def computing(self) -> dict[int, Computing]:
        """The lines whose effects the values shown on them may fix (:mod:`.computed`)."""
        return computing_lines(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def receivers(self) -> dict[int, Receiver]:
        """The lines that hand a call's return value on unchanged (:mod:`.handed_back`)."""
        return receivers(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def copies(self) -> dict[int, dict[str, Copied]]:
        """The lines that only copy values into variables (:mod:`.handed_back`)."""
        return copies(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def returns(self) -> dict[int, Copied]:
        """The lines that only return a variable's value or a literal (:mod:`.handed_back`)."""
        return returns(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def made_generators(self) -> dict[int, dict[str, Copied]]:
        """The lines that only make a generator of the code (:mod:`.handed_back`)."""
        return made_generators(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def appends(self) -> dict[int, Appended]:
        """The lines that only append a value to a list (:mod:`.handed_back`)."""
        return appends(self._tree) if self._tree is not None else {}

    @functools.cached_property
    def call_sites(self) -> CallSites:
        """The lines that can call each plain function of the code (for a return whose call
        the history did not see)."""
        return CallSites(self.code)

    @functools.cached_property
    def passed(self) -> PassedArguments:
        """The literals calls pass to the code's plain functions, written out or by the name
        of a module constant no code binds again (:mod:`.passed_arguments`)."""
        sites = self.call_sites
        constants = self._constants_bound_once
        return PassedArguments(sites.functions, sites.sites, sites.builtins_kept, constants)

    @functools.cached_property
    def _constants_bound_once(self) -> dict[str, object]:
        """The module's constants (:mod:`.module_constants`) no code binds again, by value."""
        tree, literals = self._tree, self.module_constants.literals
        return {n: v for n, v in literals.items() if tree and bound_once(tree, n)}

    def passed_by_call_text(self, lines: list[str], entry: str | None) -> dict[str, dict[str, str]]:
        """The parameter values a call state shows whatever call made it, by its source text
        (``lines``: the code's lines): a plain function's whose every call passes them alike
        (:meth:`def_texts`). ``entry``: the source text of the run's first event, a call
        (None: not known, then none): the function it opened is called from outside the
        code, with arguments the code does not show."""
        if entry is None:
            return {}
        cached = self._passed_texts.get(entry)
        if cached is None:
            cached = self._passed_texts[entry] = {}
            for number, text in self.def_texts(lines).items():
                values = self.passed.by_every_call(number) if text != entry else {}
                if values:
                    cached[text] = values
        return cached

    def _value_shapes(self, lines: list[str], entry: str | None) -> ValueShapes | None:
        """What the code's functions return and bind (:mod:`.value_shapes`), with the plain
        functions' parameters known from the code's calls but for the run's entry's (``entry``:
        the source text of the run's first event, a call; None: not known, then none): the
        function it opened is called from outside the code, with arguments the code does not
        show. None where the code does not compile or reaches frames."""
        if entry in self._shapes_by_entry:
            return self._shapes_by_entry[entry]
        tree, shapes = self._tree, None
        if tree is not None and self._rebound_anywhere is not None:
            sites = self.call_sites
            passed = {
                number: self.passed.literal_texts(number)
                for number in sites.functions
                if entry is not None and lines[number - 1] != entry
            }
            constants = {n: render_value(v) for n, v in self._constants_bound_once.items()}
            shapes = ValueShapes(tree, sites.functions, passed, sites.builtins_kept, constants)
        self._shapes_by_entry[entry] = shapes
        return shapes

    def return_shapes(
        self, lines: list[str], entry: str | None, raised: bool = False
    ) -> dict[str, Shape]:
        """What a return state may show as its value, by its source text, where the code
        fixes its kind for every frame with code on every line of that text
        (:mod:`.value_shapes`; ``entry`` as for :meth:`_value_shapes`). ``raised``: with
        ``None`` for a frame an exception leaves (:meth:`.Shape.or_raised`)."""
        cached = self._return_shapes.get((entry, raised))
        if cached is not None:
            return cached
        if raised:
            plain = self.return_shapes(lines, entry)
            cached = {text: shape.or_raised() for text, shape in plain.items()}
            self._return_shapes[entry, raised] = cached
            return cached
        cached = self._return_shapes[entry, raised] = {}
        shapes = self._value_shapes(lines, entry)
        if shapes is None or self._tree is None:
            return cached
        by_text: dict[str, list[Shape | None]] = {}
        for number, shape in line_shapes(self._code_units, shapes, self._tree).items():
            if 0 < number <= len(lines):
                by_text.setdefault(lines[number - 1], []).append(shape)
        counts = Counter(lines)
        for text, found in by_text.items():
            known = union(found) if len(found) == counts[text] else None
            if known is not None:
                cached[text] = known
        return cached

    def variable_shapes(
        self, numbers: list[int], lines: list[str], entry: str | None
    ) -> dict[str, Shape]:
        """The kinds of value each variable of a plain function's frame can hold, where every
        one of ``numbers`` is a line of that frame's own code alone (not a comprehension's or
        a lambda's), for the variables the code fixes them (:meth:`.ValueShapes.variables`;
        ``entry`` as for :meth:`_value_shapes`)."""
        function = self.call_sites.function_at(numbers)
        if function is None or self.anonymous_on(numbers) is not False:
            return {}
        return self.function_shapes(function, lines, entry)

    def function_shapes(
        self, function: int, lines: list[str], entry: str | None
    ) -> dict[str, Shape]:
        """The kinds of value each variable of the plain function on ``function`` (its def
        line) can hold, where the code fixes them (:meth:`.ValueShapes.variables`)."""
        shapes = self._value_shapes(lines, entry)
        return {} if shapes is None else shapes.variables(function)

    def likely_by_call_text(self, lines: list[str]) -> dict[str, dict[str, frozenset[str]]]:
        """The kinds of value a call state's parameters are, as the function's uses of them
        read (:mod:`.parameter_uses`: evidence a decoder weighs, never a rule), by the call
        state's source text (``lines``: the code's lines), where one line alone has it."""
        if self._likely is None:
            counts = Counter(lines)
            found = parameter_kinds(self._tree) if self._tree is not None else {}
            self._likely = {
                lines[number - 1]: kinds
                for number, kinds in found.items()
                if 0 < number <= len(lines) and counts[lines[number - 1]] == 1
            }
        return self._likely

    @functools.cached_property
    def reraising_lines(self) -> frozenset[int]:
        """The lines of frames whose code can re-raise (:attr:`.value_shapes.CodeUnit.reraises`)."""
        return reraising_lines(self._code_units)

    def def_texts(self, lines: list[str]) -> dict[int, str]:
        """The ``def`` line text of each plain function (by def line) that no other line of
        the code (``lines``) has, so a call state showing it is that function's."""
        if self._def_texts is None:
            self._def_texts = {
                number: lines[number - 1]
                for number in self.call_sites.functions
                if 0 < number <= len(lines) and lines.count(lines[number - 1]) == 1
            }
        return self._def_texts

    def following(
        self,
        line: int,
        normally: bool = False,
        caller: bool = False,
        anonymous: bool | None = None,
    ) -> frozenset[int] | None:
        """Lines that can follow ``line`` in its frame (None: not known; empty: none, the frame
        only returns or raises from there). ``normally``: with no exception raised on the way
        (an exception in the frame is an event of its own, an exception state, before the
        handler's line). ``caller``: in a frame a call made on ``line`` has returned to;
        ``anonymous`` (with ``caller``): known to be a comprehension's or a lambda's frame
        (True) or not (False)."""
        found = (self._after_normally if normally else self.after).get(line)
        if caller:
            found = (self._caller_after_normally if normally else self._caller_after).get(
                line, found
            )
        if caller and anonymous is not None:
            found = self._kind_after.get((anonymous, normally, line), found)
        return None if found is None else frozenset(found)

    def preceding(self, line: int) -> frozenset[int] | None:
        """Lines ``line`` can follow in its frame (None: not known; empty: none, only the
        frame's call event comes before it)."""
        if self._before is None:
            self._before = {}
            for earlier, later in self.after.items():
                for n in later:
                    self._before.setdefault(n, set()).add(earlier)
        if line not in self.after:
            return None
        return frozenset(self._before.get(line, ()))

    def following_any(
        self,
        lines: Iterable[int],
        normally: bool = False,
        caller: bool = False,
        anonymous: bool | None = None,
    ) -> frozenset[int] | None:
        """Lines that can follow any of ``lines`` (None: not known for one of them, or no
        lines; ``normally``, ``caller``, ``anonymous``: see :meth:`following`)."""
        return _union(lambda line: self.following(line, normally, caller, anonymous), lines)

    def preceding_any(self, lines: Iterable[int]) -> frozenset[int] | None:
        """Lines any of ``lines`` can follow (None: not known for one of them)."""
        return _union(self.preceding, lines)

    def first_lines_any(self, call_lines: Iterable[int]) -> frozenset[int] | None:
        """Lines a frame started on any of ``call_lines`` can start on (None: not known)."""
        return _union(self.first_lines, call_lines)

    def names_starting_any(self, call_lines: Iterable[int]) -> frozenset[str] | None:
        """Variables of a frame started on any of ``call_lines`` (None: not known)."""
        return _union(self.names_starting, call_lines)

    def first_lines(self, call_line: int) -> frozenset[int] | None:
        """Lines a frame whose call event shows ``call_line`` can start on (None: not known)."""
        found = self.starts.get(call_line)
        return frozenset(found) if found else None

    def names_on(self, lines: Iterable[int]) -> frozenset[str] | None:
        """Variables a frame standing on one of ``lines`` can show (None: not known)."""
        return self._names_of(set().union(*(self._on_line.get(n, ()) for n in lines)))

    def names_at(self, lines: Iterable[int]) -> frozenset[str] | None:
        """Variables a frame can show when one of ``lines`` fires its line event: a function's
        those some path from its call binds before it, a module's those some path of its code
        binds before it and those functions assign as globals, a class body's all of its
        names (None: not known)."""
        lines = list(lines)
        found = self._bound_names(lines, self._on_line, 0)
        return found if self._on_line and lines else None

    def defined_at(self, lines: Iterable[int]) -> dict[str, str]:
        """The variables only ``def`` or ``lambda`` statements bind in the frame of the one
        function whose code alone runs on ``lines``, with the text of the function each holds
        (``<function outer.<locals>.inner>``): wherever the frame shows one, it shows that.
        Empty where other code shares the lines, or the code reaches frames or binds names
        dynamically."""
        unit = self._only_code(lines)
        return {} if unit is None or self._dynamic else self._defined[unit]

    def returning(self, lines: Iterable[int]) -> bool | None:
        """Whether a frame standing on one of ``lines`` can return (yield, or let an
        exception leave it) before another line fires its event: a return inside
        ``try``/``finally`` runs the ``finally`` lines first, a line in a loop's body goes on
        to the next (None: a line of no known code)."""
        lines = list(lines)
        if not lines or any(n not in self.after for n in lines):
            return None
        return any(n in self._returning for n in lines)

    def anonymous_on(self, lines: Iterable[int]) -> bool | None:
        """Whether every code with instructions on ``lines`` is a comprehension's or a
        lambda's (True), or none is (False); None where both kinds, or none, are there."""
        kinds = {
            self._unit_names[unit] in _ANONYMOUS
            for line in lines
            for unit in self._on_line.get(line, ())
        }
        return kinds.pop() if len(kinds) == 1 else None

    def unbound_by_the_way(self, lines: Iterable[int]) -> frozenset[str] | None:
        """Names a step from ``lines`` may bind or unbind besides what their statement does:
        those any code may (cells, globals, ...), those the lines' instructions do, and every
        ``except ... as`` name, which Python deletes where its handler ends (None: any name,
        the code reaches frames)."""
        if self._rebound_anywhere is None:
            return None
        rebound = self._rebound_anywhere.union(*(self._rebound_on.get(n, ()) for n in lines))
        return frozenset(rebound | self._handler_names)

    @functools.cached_property
    def _handler_names(self) -> frozenset[str]:
        if self._tree is None:
            return frozenset()
        return frozenset(
            node.name
            for node in ast.walk(self._tree)
            if isinstance(node, ast.ExceptHandler) and node.name
        )

    def makes_frames(self, lines: Iterable[int]) -> bool:
        """Whether a comprehension's or a lambda's code has instructions on any of ``lines``
        (frames of their own, which a line state on such a line may stand in)."""
        return any(
            self._unit_names[unit] in _ANONYMOUS
            for line in lines
            for unit in self._on_line.get(line, ())
        )

    def heads(self, line: int) -> bool:
        """Whether a function's or a class's code starts on ``line`` (its ``def`` or ``class``
        line, or its first decorator's)."""
        return any(
            self._unit_names[unit] not in _ANONYMOUS for unit in self._starting.get(line, ())
        )

    def calls_before_line(self, lines: Iterable[int]) -> bool:
        """Whether a step into from a line event on any of ``lines`` (at least one) cannot show
        another line event of the same frame next: every way from where the event fires to
        the frame's next line passes a call of a plain function by name (:mod:`.call_sites`)
        or of a list, set or dict comprehension, whose frame's call event comes first (ways
        that return first, or raise, do not count). ``[square(x) for x in xs]``: in the
        comprehension's frame each turn of the loop calls ``square`` before the line fires
        again, and the frame may still return at the end."""
        lines = list(lines)
        if not lines or self._tree is None:
            return False
        for line in lines:
            if line not in self._calls_before_line:
                if self._sure is None:
                    self._sure = self._sure_calls()
                sure = self._sure
                units = self._on_line.get(line, set())
                self._calls_before_line[line] = bool(units) and all(
                    _calls_before_line(*self._walks[unit], line, sure) for unit in units
                )
            if not self._calls_before_line[line]:
                return False
        return True

    def _sure_calls(self) -> frozenset[tuple[int, int, int, int]]:
        """The source spans of the calls that surely open a frame of the code (see
        :meth:`calls_before_line`), as ``dis`` gives an instruction's positions."""
        assert self._tree is not None
        plain = {function.name for function in self.call_sites.functions.values()}
        spans = set()
        for node in ast.walk(self._tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                sure = node.func.id in plain
            else:
                sure = isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp))
            if sure and isinstance(node, ast.expr):
                end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
                spans.add((node.lineno, end[0], node.col_offset, end[1]))
        return frozenset(spans)

    def stored_before(self, lines: Iterable[int]) -> frozenset[str] | None:
        """Variables the frame of the one function whose code alone runs on ``lines`` may
        have stored itself (or an inner function, or a ``del``) by the time one of them fires
        its line event; a parameter not among them still holds what the call passed. None:
        not one function's code, or code that reaches frames."""
        lines = list(lines)
        unit = self._only_code(lines)
        paths = None if unit is None or unit not in self._functions else self._paths[unit]
        if paths is None:
            return None
        stored = paths.stored_at
        return self._spoiled.union(*(stored.get(n, frozenset()) for n in lines))

    def _only_code(self, lines: Iterable[int]) -> int | None:
        """The one code object (by index) with instructions on ``lines``, where no other has
        any there and no code reaches frames (None: not so)."""
        units = set().union(*(self._on_line.get(n, set()) for n in lines))
        if len(units) != 1 or self._rebound_anywhere is None:
            return None
        (unit,) = units
        return unit

    def names_first_at(self, lines: Iterable[int]) -> frozenset[str] | None:
        """Variables a frame can show at the run's first line event on one of ``lines``: as
        :meth:`names_at`, but only bound on paths that have not run the line before (a
        breakpoint on a loop's ``for`` line, first hit, cannot show its loop variable). That
        event is not one of a code object made on the line itself (a lambda's, a
        comprehension's), since the code making it fires the line first (None: not known)."""
        lines = list(lines)
        if not self._on_line or not lines:
            return None
        found: set[str] = set()
        for line, units in self._first_units(lines).items():
            for unit in units:
                paths = self._paths[unit]  # known wherever ``_bound`` is
                names = self._names[unit] if paths is None else paths.first_at(line)
                if names is None:
                    return None
                found |= names
        return frozenset(found)

    def names_starting(self, call_line: int) -> frozenset[str] | None:
        """Variables a frame whose call event shows ``call_line`` can show (None: not known)."""
        return self._names_of(self._starting.get(call_line, set()))

    def names_by_call_text(self, lines: list[str]) -> dict[str, frozenset[str]]:
        """Variables a call state may show, by its source text (``lines``: the code's lines;
        lines sharing one text share the union; a text whose frames are not known is left
        out)."""
        if self._call_names is None:
            by_text: dict[str, set[int]] = {}
            for number in self._starting:
                if 0 < number <= len(lines):
                    by_text.setdefault(lines[number - 1], set()).add(number)
            found = {text: self.names_calling(numbers) for text, numbers in by_text.items()}
            self._call_names = {text: names for text, names in found.items() if names is not None}
        return self._call_names

    def names_calling(self, call_lines: Iterable[int]) -> frozenset[str] | None:
        """Variables a call event on one of ``call_lines`` can show: a function's bound at that
        point (its arguments and free variables, or what a resumed generator has bound)."""
        return self._bound_names(call_lines, self._starting, 1)

    def return_lines(
        self, lines: Iterable[int], called: bool, anonymous: bool | None = None
    ) -> frozenset[int] | None:
        """The lines the return event of the frame standing on one of ``lines`` can show (it
        returns, or an exception leaves it, where its code has instructions); ``called``: a
        call event stands there, where its code starts; ``anonymous``: the frame is known to be
        a comprehension's or a lambda's (True) or not (False). None if no code is known
        there."""
        table = self._starting if called else self._on_line
        units = set().union(*(table.get(n, set()) for n in lines))
        if anonymous is not None:
            units = {u for u in units if (self._unit_names[u] in _ANONYMOUS) is anonymous}
        if not units:
            return None
        starts = {n for n, on in self._starting.items() if on & units} if called else set()
        return frozenset(n for n, on in self._on_line.items() if on & units) | starts

    def names_surely_at(self, lines: Iterable[int]) -> frozenset[str]:
        """Variables a frame surely shows when one of ``lines`` fires its line event: a
        function's arguments, and the variables every path from its call binds before that
        line (and no path unbinds). Empty for a module's or class body's line, where the code
        binds names the tracer may hide, and wherever the frame may hold more variables than
        the tracer lists (it then cuts the list)."""
        return self._surely_bound(list(lines), self._on_line, 0)

    def names_surely_first_at(self, lines: Iterable[int]) -> frozenset[str]:
        """Variables a frame surely shows at the run's first line event on one of ``lines``:
        as :meth:`names_surely_at`, over the code objects that event can be of (not one made
        on the line itself: :meth:`names_first_at`)."""
        lines = list(lines)
        return self._surely_bound(lines, self._first_units(lines), 0)

    def first_hit_function(self, lines: Iterable[int]) -> int | None:
        """The def line of the plain function (:mod:`.call_sites`) whose own frame fires the
        run's first line event on each of ``lines``: its code has instructions there, and any
        other code there is a comprehension's or a lambda's made on that line, which the
        function fires the line before making (``return [f(x) for x in xs]``). None where
        that is not so."""
        units = set().union(*self._first_units(list(lines)).values())
        if len(units) != 1 or not units <= self._functions:
            return None
        (unit,) = units
        code = self._code_units[unit]
        function = self.call_sites.functions.get(code.first_line)
        return code.first_line if function is not None and function.name == code.name else None

    def _first_units(self, lines: list[int]) -> dict[int, set[int]]:
        """By line: the code objects the run's first line event on it can be of (not one made
        on the line itself, which the code making it fires first)."""
        return {
            line: {u for u in self._on_line.get(line, ()) if self._made_on.get(u) != line}
            for line in lines
        }

    def names_surely_calling(
        self, call_lines: Iterable[int], module: bool = True
    ) -> frozenset[str]:
        """Variables a call event on one of ``call_lines`` surely shows: a function's
        arguments (and, for a generator resumed, what every path to its yield bound).
        ``module``: the call may be the module frame's own (the run's first event; it shows
        none), which starts on the module's first line."""
        starting = self._starting
        if not module:
            starting = {n: units - {0} for n, units in starting.items()}
        return self._surely_bound(list(call_lines), starting, 1)

    def required_by_call_text(
        self, lines: list[str], module: bool = True
    ) -> dict[str, frozenset[str]]:
        """Variables a call state surely shows, by its source text (``lines``: the code's
        lines; lines sharing one text share what all of them surely show; texts with none
        are left out). ``module``: as :meth:`names_surely_calling`."""
        cached = self._call_required.get(module)
        if cached is not None:  # asked at every step of a session, of the same code
            return cached
        by_text: dict[str, set[int]] = {}
        for number in self._starting:
            if 0 < number <= len(lines):
                by_text.setdefault(lines[number - 1], set()).add(number)
        found = {
            text: self.names_surely_calling(numbers, module) for text, numbers in by_text.items()
        }
        required = self._call_required[module] = {t: n for t, n in found.items() if n}
        return required

    def reachable_from(self, lines: Iterable[int]) -> frozenset[int] | None:
        """Every line a frame standing on one of ``lines`` can still reach, ``lines``
        included, by any way on (exceptions' too); None: not known."""
        seen = set(lines)
        todo = list(seen)
        while todo:
            following = self.following(todo.pop())
            if following is None:
                return None
            todo.extend(following - seen)
            seen |= following
        return frozenset(seen)

    @functools.cached_property
    def statement_starts(self) -> dict[int, frozenset[int]]:
        """For each line, the first lines of the statements spanning it (where a statement
        over several lines reports its line events)."""
        found: dict[int, set[int]] = {}
        for node in ast.walk(self._tree) if self._tree is not None else ():
            if isinstance(node, ast.stmt):
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    found.setdefault(line, set()).add(node.lineno)
        return {line: frozenset(starts) for line, starts in found.items()}

    def in_functions(self, lines: Iterable[int]) -> bool:
        """Whether only functions' code has instructions on ``lines`` (no module or class
        body runs there), so a frame standing on one of them is a function's."""
        lines = list(lines)
        return bool(lines) and all(
            units and all(u in self._functions for u in units)
            for units in (self._on_line.get(n) for n in lines)
        )

    def _surely_bound(
        self, lines: list[int], units_by_line: dict[int, set[int]], event: int
    ) -> frozenset[str]:
        """The intersection, over ``lines`` and the code objects ``units_by_line`` lists for
        them, of the variables surely bound at their line events (``event`` 0) or call
        events (1); empty where one is a module or class body, the code binds names
        dynamically or reaches frames, or the frame may list more than the tracer shows."""
        if not lines or self._dynamic or self._rebound_anywhere is None:
            return frozenset()
        found: frozenset[str] | None = None
        for line in lines:
            units = units_by_line.get(line)
            if not units:
                return frozenset()
            for unit in units:
                surely = self._surely[unit]
                if surely is None:
                    return frozenset()
                names = surely[event].get(line, frozenset())
                found = names if found is None else found & names
        possible = self._bound_names(lines, units_by_line, event)
        if not found or possible is None or len(possible) >= MAX_VARIABLES:
            return frozenset()
        return found

    def _bound_names(
        self, lines: Iterable[int], units_by_line: dict[int, set[int]], event: int
    ) -> frozenset[str] | None:
        """The union, over the code objects ``units_by_line`` lists for ``lines``, of the
        variables bound at their line events (``event`` 0) or call events (1); a module's or
        class body's all of its names; None if one is not known."""
        found: set[str] = set()
        for line in lines:
            for unit in units_by_line.get(line, ()):
                bound = self._bound[unit]
                names = self._names[unit] if bound is None else bound[event].get(line, frozenset())
                if names is None:
                    return None
                found |= names
        return frozenset(found)

    def unchanged(self, lines: Iterable[int], shown: Mapping[str, str | None]) -> frozenset[str]:
        """Variables of ``shown`` (a frame's whole locals, as rendered, when one of ``lines``
        fires its line event) whose values a step from that line cannot change, so the next
        line state's diff cannot show them.

        Between a line event and the frame's next one, the frame runs only that line's
        instructions and ones without a line. A variable none of these binds keeps its
        binding; if its value is an immutable literal (a number, a string, bytes, a bool,
        None, or a tuple of such), nothing a call does can change it either. Left out: cells
        and free variables (an inner function may assign them), names stored as globals (any
        call may), values that are cut or not literals, and all of it where the code reaches
        frames or binds names dynamically (``exec``, ``locals()``, ``sys._getframe``, ...).
        """
        lines = list(lines)
        if self._rebound_anywhere is None or not lines:
            return frozenset()
        rebound = self._rebound_anywhere.union(*(self._rebound_on.get(n, ()) for n in lines))
        inert = self._inert(lines, shown)
        # ``xs += [1]`` changes the list in place: a name showing the same text may be it
        aliased = {shown.get(name) for name in rebound} - {None}
        return frozenset(
            name
            for name, value in shown.items()
            if name not in rebound
            and name not in (DIFF_MARKER_KEY, MORE_VARIABLES_KEY)
            and value is not None
            and (_immutable_literal(value) or (inert and _literal(value) and value not in aliased))
        )

    def _inert(self, lines: list[int], shown: Mapping[str, str | None]) -> bool:
        """Whether each of ``lines`` runs no code but the builtins' operations on plain values
        (:data:`_INERT`), every name it loads shown as a literal: then a list or a dict it does
        not rebind keeps its value too (``count += 1``, ``if d == 0: t += 1``)."""
        for line in lines:
            loads = self._inert_loads.get(line)
            if loads is None:
                return False
            for name in loads:
                value = shown.get(name)
                if value is None or not _literal(value):
                    return False
        return True

    def _read_rebinding(self, units: list[tuple[CodeType, dis.Bytecode]]) -> None:
        """Which variables each line binds or unbinds, and which any code can (see
        :meth:`unchanged`)."""
        anywhere: set[str] = set()
        for unit, bytecode in units:
            if _FRAME_ACCESS & set(unit.co_names):
                return
            anywhere |= set(unit.co_cellvars) | set(unit.co_freevars)
            for ins in bytecode:
                line = ins.positions.lineno if ins.positions else None
                if line is not None:
                    self._note_inert(line, ins)
                if not ins.opname.startswith(_REBINDING):
                    continue
                if ins.opname in ("STORE_NAME", "DELETE_NAME"):
                    count = self._name_stores.get(ins.argval, 0)
                    self._name_stores[ins.argval] = count + 1 if count >= 0 else count
                elif ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
                    self._name_stores[ins.argval] = -1
                names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
                line = ins.positions.lineno if ins.positions else None
                if line is None or ins.opname.endswith("_GLOBAL"):
                    anywhere.update(names)
                else:
                    self._rebound_on.setdefault(line, set()).update(names)
        self._rebound_anywhere = anywhere

    def _note_inert(self, line: int, ins: dis.Instruction) -> None:
        if line in self._stirring:
            return
        if ins.opname not in _INERT:
            self._stirring.add(line)
            self._inert_loads.pop(line, None)
            return
        loads = self._inert_loads.setdefault(line, set())
        if ins.opname in _LOADS:
            loads.add(str(ins.argval))

    def _names_of(self, units: set[int]) -> frozenset[str] | None:
        found: set[str] = set()
        for unit in units:
            names = self._names[unit]
            if names is None:
                return None
            found |= names
        return frozenset(found) if units else None

    def _name_frames(self, units: list[tuple[CodeType, dis.Bytecode]]) -> None:
        """A function's frame shows its own variables (arguments, locals, cells, free
        variables); a module's or a class body's, the names its code stores (a module's also
        those that functions store as globals). Code that can add names no instruction stores
        (``from m import *``, ``exec``, ``locals()``, ...) may show any, and so may the body of
        a class with a metaclass of its own (``Enum`` puts ``_generate_next_value_`` there)."""
        stored_globally = {
            ins.argval
            for _, bytecode in units
            for ins in bytecode
            if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL")
        }
        for index, (unit, bytecode) in enumerate(units):
            instructions = list(bytecode)
            loaded = {ins.argval for ins in instructions if ins.opname.startswith("LOAD_")}
            dynamic = loaded & _DYNAMIC or any(ins.opname == "IMPORT_STAR" for ins in instructions)
            optimized = unit.co_flags & inspect.CO_OPTIMIZED
            metaclass = index and not optimized and unit.co_firstlineno not in self._plain_classes
            self._dynamic = self._dynamic or bool(dynamic)
            if dynamic or metaclass:
                self._names.append(None)
            elif optimized:
                self._names.append(
                    frozenset(unit.co_varnames + unit.co_cellvars + unit.co_freevars)
                )
            else:
                stored = {
                    ins.argval
                    for ins in instructions
                    if ins.opname in ("STORE_NAME", "DELETE_NAME")
                }
                if index == 0:  # the module
                    stored |= stored_globally
                self._names.append(frozenset(stored))

    def _read(
        self,
        unit: CodeType,
        bytecode: dis.Bytecode,
        index: int,
        nonlocal_stores: set[str],
        unbindable: set[str],
    ) -> None:
        instructions = list(bytecode)
        self._walks.append(([], [], [], 0))
        self._unit_names.append(unit.co_name)
        optimized = bool(unit.co_flags & inspect.CO_OPTIMIZED)
        named = optimized and not self._renaming
        parameters = frozenset(_arguments(unit))  # bound by the call, before any ``def`` runs
        self._defined.append(
            _defined_functions(instructions, self._spoiled | parameters) if named else {}
        )
        self._bound.append(({}, {}) if optimized else None)
        self._surely.append(({}, {}) if optimized else None)
        if not instructions:
            self._paths.append(None)
            return
        at = {ins.offset: k for k, ins in enumerate(instructions)}
        lines = [(ins.positions.lineno if ins.positions else None) or None for ins in instructions]
        normal: list[list[int]] = [[] for _ in instructions]  # fall-through and jumps
        raises: list[list[int]] = [[] for _ in instructions]  # exception handlers
        for k, ins in enumerate(instructions):
            if ins.opname not in _NO_FALL_THROUGH and k + 1 < len(instructions):
                normal[k].append(k + 1)
            if ins.opcode in _JUMPS and isinstance(ins.argval, int) and ins.argval in at:
                normal[k].append(at[ins.argval])
        for entry in getattr(bytecode, "exception_entries", ()):
            if entry.target not in at:
                continue
            handler = at[entry.target]
            for k, ins in enumerate(instructions):
                if entry.start <= ins.offset < entry.end:
                    raises[k].append(handler)
        ways = [n + r for n, r in zip(normal, raises, strict=True)]
        resumes = [k for k, ins in enumerate(instructions) if ins.opname == "RESUME"] or [0]
        self._walks[index] = (instructions, lines, normal, resumes[0])
        # Only instructions after the first RESUME fire line events: the ones up to it (cell
        # set-up, a generator's creation) run before the call event and stand on the def line,
        # which in this frame fires no line event unless its body starts on it. Without this
        # cut a module's `def f(x):` line would be followed by f's first body line.
        on_line: dict[int, list[int]] = {}
        for k, n in enumerate(lines):
            if n is not None and k > resumes[0]:
                on_line.setdefault(n, []).append(k)
        self._paths.append(None)
        bound = None
        if optimized:
            names = unit.co_varnames + unit.co_cellvars + unit.co_freevars
            start = _arguments(unit) + unit.co_freevars
            start += tuple(n for n in unit.co_cellvars if n in nonlocal_stores)
            paths = _Paths(
                instructions, lines, normal, raises, resumes[0], names, start, _FAST_STORES
            )
            self._paths[index] = paths
            bound = paths.bound()
            at_lines = _bound_at_line_events(bound, lines, normal, raises, resumes[0])
            self._bound[index] = (at_lines, {})
        surely = None
        if optimized:
            self._functions.add(index)
            start = _arguments(unit) + tuple(self._made_with.get(id(unit), ()))
            names = unit.co_varnames + unit.co_cellvars + unit.co_freevars
            surely = _bound_surely(
                instructions, normal, raises, names, start, _FAST_STORES, _FAST_DELETES, unbindable
            )
            self._surely[index] = (_surely_on_lines(surely, lines, resumes[0]), {})
            self._note_closures(unit, instructions, surely)
        elif index == 0 and self._tree is not None:  # the module: its globals, modules aside
            self._module_code = (instructions, lines, normal, raises, resumes[0])
            names = tuple(i.argval for i in instructions if i.opname.startswith(_NAME_BINDING))
            hidden = unbindable | (_maybe_modules(self._tree) if "import" in self.code else set())
            surely = _bound_surely(
                instructions, normal, raises, names, (), _NAME_STORES, _NAME_DELETES, hidden
            )
            self._surely[index] = (_surely_on_lines(surely, lines, resumes[0]), {})
        head = unit.co_firstlineno if index != 0 and not optimized else None  # a class body's
        for line, starts in on_line.items():
            reached, normally = _reached(starts, lines, ways), _reached(starts, lines, normal)
            self.after.setdefault(line, set()).update(reached)
            self._after_normally.setdefault(line, set()).update(normally)
            if line != head:
                self._caller_after.setdefault(line, set()).update(reached)
                self._caller_after_normally.setdefault(line, set()).update(normally)
                anonymous = unit.co_name in _ANONYMOUS
                self._kind_after.setdefault((anonymous, False, line), set()).update(reached)
                self._kind_after.setdefault((anonymous, True, line), set()).update(normally)
            if _returns_first(starts, lines, normal, instructions):
                self._returning.add(line)
            self._on_line.setdefault(line, set()).add(index)
        # The call event comes from RESUME (after any cell set-up) and shows its line: the def
        # line, or co_firstlineno (the first decorator). The first instruction after it with a
        # line fires that line, whichever it is (a class body starts on its class line).
        # A generator's frame also starts again (a call event on the line that yielded) at each
        # later RESUME, and goes on from there.
        for k in resumes:
            first: set[int] = set()
            for j in ways[k]:
                first |= _reached([j], lines, ways, entering=True)
            shown = {unit.co_firstlineno, lines[k]} if k == resumes[0] else {lines[k]}
            if k != resumes[0] and lines[k] is not None:
                first |= _reached([k], lines, ways)
            for line in (at for at in shown if at is not None):
                self.starts.setdefault(line, set()).update(first)
                self._starting.setdefault(line, set()).add(index)
                if bound is not None and bound[k] is not None:
                    at_call = self._bound[index][1]  # type: ignore[index]
                    at_call[line] = at_call.get(line, frozenset()) | bound[k][0]  # type: ignore[index]
                sure_at_call = self._surely[index]
                if surely is not None and sure_at_call is not None:
                    here: frozenset[str] = surely[k] or frozenset()
                    earlier = sure_at_call[1].get(line)
                    sure_at_call[1][line] = here if earlier is None else earlier & here

    def _bound_in_module(self, units: list[tuple[CodeType, dis.Bytecode]]) -> None:
        """Which of the module's names can be bound when each of its lines fires its line
        event: those a path of the module's code from its start binds before the line, and
        those a function assigns as globals (a call may bind them at any time). A breakpoint
        on ``x = 1`` at module level cannot show ``x`` before that line has run once."""
        assert self._module_code is not None
        instructions, lines, normal, raises, entry = self._module_code
        globally = {
            ins.argval
            for unit, bytecode in units[1:]
            for ins in bytecode
            if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL")
        }
        known = self._names[0] or frozenset()
        names = tuple(i.argval for i in instructions if i.opname.startswith(_NAME_BINDING))
        names = tuple(n for n in (*names, *sorted(globally)) if n in known)
        start = tuple(sorted(globally))
        paths = self._paths[0] = _Paths(
            instructions, lines, normal, raises, entry, names, start, _NAME_STORES
        )
        at_lines = _bound_at_line_events(paths.bound(), lines, normal, raises, entry)
        self._bound[0] = (at_lines, {})

    def _note_closures(
        self,
        unit: CodeType,
        instructions: list[dis.Instruction],
        surely: list[frozenset[str] | None],
    ) -> None:
        """For each function ``unit`` makes, the free variables surely bound in ``unit`` at
        every instruction that packs a cell for a closure: the function cannot run before it
        is made, so they are bound when it is called (no code deletes them, see
        :func:`_deleted_from_anywhere`). A cell packed while it may still be empty (a function that
        calls itself by name) is left out."""
        ready: dict[str, bool] = {}
        for k, ins in enumerate(instructions):
            bound = surely[k]
            if ins.opname == "LOAD_CLOSURE" and bound is not None:
                ready[ins.argval] = ready.get(ins.argval, True) and ins.argval in bound
        packed = frozenset(name for name, ok in ready.items() if ok)
        for inner in unit.co_consts:
            if isinstance(inner, CodeType):
                self._made_with[id(inner)] = frozenset(inner.co_freevars) & packed


_T = TypeVar("_T")
# a module's instructions, their lines, the ways on from each (normal, to handlers), and its
# first RESUME
_ModuleCode = tuple[list[dis.Instruction], list[int | None], list[list[int]], list[list[int]], int]


def _union(
    each: Callable[[int], frozenset[_T] | None], items: Iterable[int]
) -> frozenset[_T] | None:
    """The union of ``each(item)``; None if there are no items or one gives None."""
    found: set[_T] = set()
    items = list(items)
    for item in items:
        part = each(item)
        if part is None:
            return None
        found |= part
    return frozenset(found) if items else None


def _reached(
    starts: list[int], lines: list[int | None], ways: list[list[int]], entering: bool = False
) -> set[int]:
    """Lines whose line event can fire first once execution leaves ``starts`` (instructions of
    one line; ``entering``: the frame starts at ``starts[0]`` and no line has fired yet).

    As CPython 3.11 traces: an instruction fires its line when the instruction executed before
    it had another line or none, or when it was reached by a jump backwards."""
    if entering and (line := lines[starts[0]]) is not None:
        return {line}
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


@dataclass(frozen=True)
class _Paths:
    """One code object's instructions and the ways between them, with what its frame binds:
    enough to walk its paths for the variables they can bind (:func:`_bound_maybe`). A
    function's ``names`` are its variables, ``start`` its arguments, free variables and the
    cells inner functions assign; the module's its names, ``start`` those functions assign as
    globals (a call may bind them at any time)."""

    instructions: list[dis.Instruction]
    lines: list[int | None]
    normal: list[list[int]]  # each instruction's ways on: fall-through and jumps
    raises: list[list[int]]  # ... and the exception handlers it may raise into
    entry: int  # the first RESUME, where the frame's call event comes from
    names: tuple[str, ...]
    start: tuple[str, ...]
    stores_by: tuple[str, ...]
    _first: dict[int, frozenset[str]] = field(default_factory=dict, compare=False)

    def bound(self) -> list[tuple[frozenset[str], frozenset[str]] | None]:
        """Before and after each instruction, the variables some path to it binds."""
        return self._walk(self.start)

    def _walk(
        self, start: tuple[str, ...], stop: frozenset[int] = frozenset()
    ) -> list[tuple[frozenset[str], frozenset[str]] | None]:
        return _bound_maybe(
            self.instructions, self.normal, self.raises, self.names, start, self.stores_by, stop
        )

    @functools.cached_property
    def stored_at(self) -> dict[int, frozenset[str]]:
        """For each line, the variables some path from the frame's start stores before the
        line fires its event (the arguments as such not counted: only the code's own
        stores)."""
        stored = self._walk(())
        return _bound_at_line_events(stored, self.lines, self.normal, self.raises, self.entry)

    def first_at(self, line: int) -> frozenset[str]:
        """The variables that can be bound when ``line`` fires its first line event in a
        frame: those bound on paths from the frame's start that run no instruction of the
        line before (the first instruction of it a path runs fires the event, see
        :func:`_reached`), so a loop body's later bindings are left out."""
        cached = self._first.get(line)
        if cached is not None:
            return cached
        on_line = frozenset(k for k, n in enumerate(self.lines) if n == line and k > self.entry)
        bound = self._walk(self.start, on_line)
        found: set[str] = set()
        for k, states in enumerate(bound):
            if states is None or k in on_line:
                continue
            if any(j in on_line for j in self.normal[k]):
                found |= states[1]
            if any(j in on_line for j in self.raises[k]):  # raised before its store
                found |= states[0]
        first = self._first[line] = frozenset(found)
        return first


# Instructions after which the frame's ``return`` event can come: a return, a yield, and a
# re-raise (an exception no ``except`` of the frame matched leaves it with no new event).
_RETURNING = frozenset({"RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE", "RERAISE"})


_ANONYMOUS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>", "<lambda>"})


def _calls_before_line(
    instructions: list[dis.Instruction],
    lines: list[int | None],
    normal: list[list[int]],
    entry: int,
    line: int,
    sure: frozenset[tuple[int, int, int, int]],
) -> bool:
    """Whether every way with no exception from where ``line``'s event fires in this code
    (an instruction reached from the frame's entry, from another line or none, or backwards:
    see :func:`_reached`) reaches a call of ``sure`` (by its source span) before it fires a
    line event; ways that return or yield first do not count against it. False where the
    line fires no event here."""
    firing = set()
    for k, onward in enumerate(normal):
        for j in onward:
            fires = k == entry or lines[k] is None or lines[k] != lines[j] or j <= k
            if lines[j] == line and fires and j > entry:
                firing.add(j)
    if not firing:
        return False
    todo: list[tuple[int, int | None]] = [(k, line) for k in firing]
    seen = set(todo)
    while todo:
        k, last = todo.pop()
        ins = instructions[k]
        if ins.opname == "CALL" and ins.positions is not None and tuple(ins.positions) in sure:
            continue  # the callee's call event comes first
        for j in normal[k]:
            target = lines[j]
            if target is not None and (last is None or target != last or j <= k):
                return False  # another line event (or this line's again) comes first
            item = (j, last if target is not None else None)
            if item not in seen:
                seen.add(item)
                todo.append(item)
    return True


def _returns_first(
    starts: list[int],
    lines: list[int | None],
    ways: list[list[int]],
    instructions: list[dis.Instruction],
) -> bool:
    """Whether execution leaving ``starts`` (the instructions of one line) along ``ways`` can
    reach an instruction after which the frame's ``return`` trace event comes
    (:data:`_RETURNING`) before an instruction fires another line event (see
    :func:`_reached`)."""
    line = lines[starts[0]]
    todo = list(starts)
    seen = set(todo)
    while todo:
        k = todo.pop()
        if instructions[k].opname in _RETURNING:
            return True
        for j in ways[k]:
            target = lines[j]
            if target is not None and (target != line or j <= k):
                continue  # another line fires first
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return False


def _bound_maybe(
    instructions: list[dis.Instruction],
    normal: list[list[int]],
    raises: list[list[int]],
    names: tuple[str, ...],
    start: Iterable[str],
    stores_by: tuple[str, ...],
    stop: frozenset[int] = frozenset(),
) -> list[tuple[frozenset[str], frozenset[str]] | None]:
    """For each instruction of one code object, which of ``names`` can be bound before and
    after it runs (None: it never runs): ``start`` from the frame's start, and each name an
    instruction of ``stores_by`` (by name prefix) stores on some path to it: along the
    ``normal`` ways on from an instruction, what it stored too; along the ``raises`` ways to
    exception handlers, what was bound before it (an instruction that raised stored nothing).
    Deletions are ignored, so the sets only ever grow too large. Paths end at the
    instructions ``stop`` lists (they are reached, but not left)."""
    names = tuple(dict.fromkeys(names))
    bit = {name: 1 << i for i, name in enumerate(names)}
    stores = [0] * len(instructions)
    for k, ins in enumerate(instructions):
        if ins.opname.startswith(stores_by):
            targets = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
            stores[k] = sum(bit.get(t, 0) for t in targets if isinstance(t, str))
    masks: list[int | None] = [None] * len(instructions)
    masks[0] = sum(bit[n] for n in set(start) if n in bit)
    todo = [0]
    while todo:
        k = todo.pop()
        if k in stop:
            continue
        here = masks[k]
        assert here is not None
        for ways, carried in ((normal[k], here | stores[k]), (raises[k], here)):
            for j in ways:
                before = masks[j]
                if before is None or carried | before != before:
                    masks[j] = carried if before is None else carried | before
                    todo.append(j)

    @functools.cache
    def named(mask: int) -> frozenset[str]:  # instructions mostly share a few masks
        return frozenset(n for n in names if mask & bit[n])

    return [
        None if mask is None else (named(mask), named(mask | stores[k]))
        for k, mask in enumerate(masks)
    ]


def _bound_at_line_events(
    bound: list[tuple[frozenset[str], frozenset[str]] | None],
    lines: list[int | None],
    normal: list[list[int]],
    raises: list[list[int]],
    entry: int,
) -> dict[int, frozenset[str]]:
    """For each line, the variables that can be bound when its event fires: what each way
    into one of its instructions that fires the line (from the frame's entry ``entry``, from
    another line, from an instruction without one, or backwards; see :func:`_reached`)
    carries: after that way's instruction, or, to an exception handler, before it."""
    found: dict[int, set[str]] = {}
    for k, states in enumerate(bound):
        if states is None:
            continue
        for onward, carried in ((normal[k], states[1]), (raises[k], states[0])):
            for j in onward:
                line = lines[j]
                fires = k == entry or lines[k] is None or lines[k] != line or j <= k
                if line is not None and fires:
                    found.setdefault(line, set()).update(carried)
    return {line: frozenset(names) for line, names in found.items()}


def _arguments(unit: CodeType) -> tuple[str, ...]:
    """A function's arguments: its first variables, bound when its frame starts."""
    flags = unit.co_flags
    count = unit.co_argcount + unit.co_kwonlyargcount
    count += bool(flags & inspect.CO_VARARGS) + bool(flags & inspect.CO_VARKEYWORDS)
    return unit.co_varnames[:count]


# What binds and unbinds a function's variables, and a module's names.
_FAST_STORES = ("STORE_FAST", "STORE_DEREF")
_FAST_DELETES = ("DELETE_FAST", "DELETE_DEREF", "LOAD_FAST_AND_CLEAR")
_NAME_STORES = ("STORE_NAME", "STORE_GLOBAL")  # a module's (global, where a function says so)
_NAME_DELETES = ("DELETE_NAME", "DELETE_GLOBAL")
_NAME_BINDING = _NAME_STORES + _NAME_DELETES


def _bound_surely(
    instructions: list[dis.Instruction],
    normal: list[list[int]],
    raises: list[list[int]],
    names: tuple[str, ...],
    start: tuple[str, ...],
    stores_by: tuple[str, ...],
    deletes_by: tuple[str, ...],
    hidden: set[str],
) -> list[frozenset[str] | None]:
    """For each instruction of one code object, which of ``names`` are bound on every path
    from the frame's start to it (None: it never runs), less ``hidden`` (names the tracer may
    not show, or some other code may unbind). ``start``: what is bound when the frame starts
    (a function's arguments, free variables known to be set); ``stores_by``, ``deletes_by``:
    the instructions (by name prefix) that bind and unbind a name. A way on after an
    instruction carries what it stores and not what it deletes; a way to an exception
    handler only what was bound before the instruction that raised (its store may not have
    happened), less what it deletes. Dunder names are left out: the tracer hides them."""
    names = tuple(dict.fromkeys(names))
    bit = {name: 1 << i for i, name in enumerate(names)}
    stores = [0] * len(instructions)
    deletes = [0] * len(instructions)
    for k, ins in enumerate(instructions):
        targets = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
        mask = sum(bit.get(t, 0) for t in targets if isinstance(t, str))
        if ins.opname.startswith(stores_by):
            stores[k] = mask
        elif ins.opname.startswith(deletes_by):
            deletes[k] = mask
    masks: list[int | None] = [None] * len(instructions)
    masks[0] = sum(bit[n] for n in start if n in bit)
    todo = [0]
    while todo:
        k = todo.pop()
        here = masks[k]
        assert here is not None
        after = (here | stores[k]) & ~deletes[k]
        for ways, carried in ((normal[k], after), (raises[k], here & ~deletes[k])):
            for j in ways:
                before = masks[j]
                if before is None or before & carried != before:
                    masks[j] = carried if before is None else before & carried
                    todo.append(j)
    shown = [n for n in names if n not in hidden and not (n.startswith("__") and n.endswith("__"))]

    @functools.cache
    def named(mask: int) -> frozenset[str]:  # instructions mostly share a few masks
        return frozenset(n for n in shown if mask & bit[n])

    return [None if mask is None else named(mask) for mask in masks]


def _maybe_modules(tree: ast.Module) -> set[str]:
    """Names the module's own code may bind to a module, which the tracer hides at module
    level: every name an ``import`` binds, and every name bound by a statement whose value
    mentions one of those (``lib = math``, ``for m in (os, sys)``; ``x = math.pi`` too, to
    be safe)."""
    imported: set[str] = set()
    bindings = []  # (the names a binding's value mentions, the names it binds)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                imported.add(alias.asname or alias.name.split(".")[0])
        value, targets = _binding(node)
        if value is not None:
            mentions = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            bindings.append((mentions, bound))
    found = set(imported)
    changed = True
    while changed:
        changed = False
        for mentions, bound in bindings:
            if mentions & found and not bound <= found:
                found |= bound
                changed = True
    return found


def _binding(node: ast.AST) -> tuple[ast.AST | None, list[ast.AST]]:
    """The value a binding statement or expression stores, and its targets."""
    if isinstance(node, ast.Assign):
        return node.value, list(node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
        return node.value, [node.target]
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return node.iter, [node.target]
    if isinstance(node, ast.With | ast.AsyncWith):
        pairs = [(i.context_expr, i.optional_vars) for i in node.items if i.optional_vars]
        return (ast.Tuple([v for v, _ in pairs]), [t for _, t in pairs]) if pairs else (None, [])
    return None, []


def _surely_on_lines(
    surely: list[frozenset[str] | None], lines: list[int | None], entry: int
) -> dict[int, frozenset[str]]:
    """For each line, the variables bound before every one of its instructions that can run
    (after the frame's first ``RESUME`` at ``entry``): its line event fires before one of
    them, so they are bound then, whichever way it came."""
    found: dict[int, frozenset[str]] = {}
    for k, (names, line) in enumerate(zip(surely, lines, strict=True)):
        if names is None or line is None or k <= entry:
            continue
        earlier = found.get(line)
        found[line] = names if earlier is None else earlier & names
    return found


def _deleted_from_anywhere(units: list[tuple[CodeType, dis.Bytecode]]) -> set[str]:
    """Names some code deletes as a cell or free variable, or as a global (``del x`` of a
    closure's variable, ``global x; del x``): any frame sharing that cell, or the module,
    may see it unbound at any time."""
    deleting = ("DELETE_DEREF", "DELETE_GLOBAL")
    return {ins.argval for _, bytecode in units for ins in bytecode if ins.opname in deleting}


def _stored_from_inner_functions(units: list[tuple[CodeType, dis.Bytecode]]) -> set[str]:
    """Names an inner function assigns in an enclosing function's frame (``nonlocal x``)."""
    return {
        ins.argval
        for unit, bytecode in units
        for ins in bytecode
        if ins.opname.startswith("STORE_DEREF") and ins.argval in unit.co_freevars
    }


def _defined_functions(
    instructions: list[dis.Instruction], spoiled: frozenset[str]
) -> dict[str, str]:
    """The variables of a function's frame whose every binding there stores a function just
    made from a code object of the code (an undecorated ``def``, or ``NAME = lambda ...``),
    all with one qualified name, with the text the tracer writes for it: ``<function
    QUALNAME>``. Left out: names bound any other way (a decorator's result, an assignment, a
    loop, ``del``) and names in ``spoiled`` (an inner function may rebind or delete them, or
    the call binds them: the function's parameters)."""
    texts: dict[str, set[str]] = {}
    for k, ins in enumerate(instructions):
        if not ins.opname.startswith(_REBINDING) or not isinstance(ins.argval, str):
            continue
        made = k >= 2 and instructions[k - 1].opname == "MAKE_FUNCTION"
        code = instructions[k - 2].argval if made else None
        storing = ins.opname in ("STORE_FAST", "STORE_DEREF")
        text = f"<function {code.co_qualname}>" if storing and isinstance(code, CodeType) else ""
        texts.setdefault(ins.argval, set()).add(text)
    return {
        name: next(iter(found))
        for name, found in texts.items()
        if len(found) == 1
        and "" not in found
        and name not in spoiled
        and not (name.startswith("__") and name.endswith("__"))  # the tracer hides dunders
    }


# What can give a function another name than its code's: ``functools.wraps`` and
# ``update_wrapper`` copy the wrapped function's.
_RENAMING = frozenset({"wraps", "update_wrapper"})


def _renames_functions(units: list[tuple[CodeType, dis.Bytecode]]) -> bool:
    """Whether some code may change a function's qualified name (:data:`_RENAMING`, or an
    assignment to a ``__qualname__`` attribute), so the tracer's text of a function made by a
    ``def`` may not be its code's."""
    return any(
        _RENAMING & set(unit.co_names)
        or any(i.opname == "STORE_ATTR" and i.argval == "__qualname__" for i in bytecode)
        for unit, bytecode in units
    )


def _made_on(units: list[tuple[CodeType, dis.Bytecode]]) -> dict[int, int]:
    """For each code object (by its index in ``units``) that another one's instructions make
    (a function, lambda, comprehension or class body), the line of the instruction that loads
    it: the maker's frame fires that line before the made code can run."""
    index = {id(unit): k for k, (unit, _) in enumerate(units)}
    made: dict[int, int] = {}
    for _, bytecode in units:
        for ins in bytecode:
            line = ins.positions.lineno if ins.positions else None
            if ins.opname == "LOAD_CONST" and isinstance(ins.argval, CodeType) and line:
                made[index.get(id(ins.argval), -1)] = line
    return made


@functools.lru_cache(maxsize=4096)
def _literal(text: str) -> bool:
    """Whether ``text`` renders a plain literal value (no object a program's code defines:
    its operations are the builtins' own)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _immutable_literal(text: str) -> bool:
    """Whether ``text`` renders an immutable value: a literal of numbers, strings, bytes,
    bools and None, alone or in tuples (a cut value is no literal). Cached: a session asks
    about the same values step after step, and a step back once per line it may land on."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. an invalid escape in a model's value
            value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return _immutable(value)


def _immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(item) for item in value)
    return isinstance(value, int | float | complex | str | bytes | type(None))


class _Decoded(dis.Bytecode):
    """A code object's instructions, decoded once: the readers above each walk them."""

    def __init__(self, unit: CodeType) -> None:
        super().__init__(unit)
        self._decoded = list(super().__iter__())

    def __iter__(self) -> Iterator[dis.Instruction]:
        return iter(self._decoded)


def _code_objects(top: CodeType) -> Iterator[CodeType]:
    todo = [top]
    while todo:
        unit = todo.pop()
        yield unit
        todo.extend(c for c in unit.co_consts if isinstance(c, CodeType))


@dataclass(frozen=True)
class Expected:
    """What the code and the action fix about the next state before the model writes a token."""

    # the source lines a state of each kind may show (a kind not listed: any line; an empty
    # set: that kind cannot come)
    lines: Mapping[StateKind, frozenset[str]] = field(default_factory=dict)
    diff: bool | None = None  # a line state's locals: a diff, whole, or either (None)
    names: frozenset[str] | None = None  # the variables a line state may show (None: any)
    # the variables a call state may show, by its source line (a line not listed: any)
    call_names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # by the line a line state shows: variables its diff may not show, since the step between
    # that line and the one the history stands on cannot change them (a line not listed: any)
    unchanged: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # a line state's diff is written against these locals (None: not known): it shows a
    # variable only with another value, and null only for one bound here
    before: Mapping[str, str | None] | None = None
    # a forward line state: the value each of these names has wherever it is shown (in the
    # module's frame its constants, :mod:`.module_constants`; in a function's the parameters
    # it keeps as every call passes them, :mod:`.passed_arguments`; what a copy or a return
    # hands on)
    fixed: Mapping[str, str] = field(default_factory=dict)
    # a call state, by its source line: the value each of these names has wherever it is shown
    # (the parameters its call passed; a line not listed: any)
    call_fixed: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # a call state, by its source line: the kinds each parameter's uses admit, which a decoder
    # favours (:mod:`.parameter_uses`; not checked by :meth:`allows`: evidence, not a rule)
    call_likely: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    # the locals of a line state must show these: whole locals, a function's arguments and what
    # every path to the line bound (the module's names bound before its line); a diff, what a
    # copy changed; a call state's, by its source line, those of :attr:`call_required` (a line
    # not listed: none)
    required: frozenset[str] = frozenset()
    call_required: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # a return state's value: the one a call the frame returns unchanged returned (None: any)
    returned: str | None = None
    # a return state's value, by its source line: what the frames there can return (a line
    # not listed: any; :mod:`.value_shapes`)
    return_shapes: Mapping[str, Shape] = field(default_factory=dict)
    # a forward line state: the kinds of value each of these variables can hold
    shapes: Mapping[str, Shape] = field(default_factory=dict)

    def allows(self, state: State) -> bool:
        """Whether ``state`` keeps to what is expected."""
        if state.kind in self.lines and state.src not in self.lines[state.kind]:
            return False
        if state.kind is StateKind.RETURN and self.returned not in (None, state.value):
            return False
        shape = self.return_shapes.get(state.src or "") if state.kind is StateKind.RETURN else None
        if shape is not None and not shape.allows(state.value):
            return False
        if state.kind is StateKind.LINE and state.locals is not None:
            written = state.locals
            if any(written.get(k, v) not in (v, None) for k, v in self.fixed.items()):
                return False
            for name, shape in self.shapes.items():
                value = written.get(name)
                if value is not None and name not in self.fixed and not shape.allows(value):
                    return False
        lined = state.kind in LINE_KINDS and state.locals is not None
        if lined and not self.required <= set(state.locals or ()):
            return False
        calling = self.call_required.get(state.src or "", frozenset())
        if state.kind in CALL_KINDS and not calling <= set(state.locals or ()):
            return False
        passed = self.call_fixed.get(state.src or "", {}) if state.kind in CALL_KINDS else {}
        if any((state.locals or {}).get(k, v) != v for k, v in passed.items()):
            return False
        names = self.names if state.kind in LINE_KINDS else None
        if state.kind in CALL_KINDS and state.src is not None:
            names = self.call_names.get(state.src)
        shown = set(state.locals or ()) - {DIFF_MARKER_KEY, MORE_VARIABLES_KEY}
        if names is not None and not shown <= names:
            return False
        if state.kind in LINE_KINDS and state.diff:
            if shown & self.unchanged.get(state.src or "", frozenset()):
                return False
            if self.before is not None and not _changes(state.locals or {}, self.before):
                return False
        return self.diff is None or state.kind not in LINE_KINDS or state.diff == self.diff


def _changes(diff: Mapping[str, str | None], before: Mapping[str, str | None]) -> bool:
    """Whether ``diff`` can follow ``before``: each value another than the variable had (a
    cut one aside), null only for a variable it had (any, if ``before`` hid some)."""
    for name, value in diff.items():
        if name == DIFF_MARKER_KEY:
            continue
        if value is None and name not in before and MORE_VARIABLES_KEY not in before:
            return False
        if value is not None and before.get(name) == value and not value.endswith(CUT_MARKER):
            return False
    return True


_UNSETTLED = frozenset({StateKind.CALL, StateKind.EXCEPTION})  # what a body on the line may do
_SHOWN_AT = tuple(k for k in StateKind if not k.is_inverse and not k.is_exit)
# Line states (their locals may be a diff) and call states (their locals are the frame's inputs).
LINE_KINDS = frozenset({StateKind.LINE, StateKind.INV_LINE, StateKind.INV_LINE_CALL})
CALL_KINDS = frozenset({StateKind.CALL, StateKind.INV_CALL})
_INVERSE_STEPS = (ActionKind.INV_STEP_INTO, ActionKind.INV_STEP_OVER)


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
      comprehension, or a line a generator resumes on), and only that frame's variables;
    * a line state after a return shows the caller's variables, after an exception its own
      frame's, and in both cases the whole locals; a step's line is one the flow leads to from
      the raising line, or from the caller's line: where the history placed it, or, after a
      jump that skipped the call, any line that calls the function (:mod:`.call_sites`);
    * after a return to a line that hands the value on (``y = f(x)``, ``return f(x)``:
      :mod:`.handed_back`), a step shows ``y`` with the returned value, or returns it;
    * a step from a line that only copies (``x = y``, ``a, b = b, a``, ``total = 0``) shows
      each target, if at all, with its source's value before the step, or the literal's;
    * a plain function's call state shows the parameters its call gives literals with their
      texts, and a line state of its own frame those it keeps (:mod:`.passed_arguments`);
    * a step into from a line that surely calls the program's code first (a function or
      class of the code, :meth:`.call_sites.CallSites.surely_calling`) shows a call or an
      exception, never another line or a return; a call only, where nothing can raise before
      it (:meth:`.call_sites.CallSites.surely_entering`);
    * after a return, a step shows the caller's return or exception only on the line of the
      call; after the module frame's return, every action ends the run;
    * a step out of a line or a call state shows that frame's return, on a line of its code;
    * a step (into, over, or out) ends the run only from a return of the top frame (not from
      a function's, but the entry call's wrapper's), or by the tracer's limits;
    * a step into or over from a line or a call state that stops on a line stays in that frame:
      its locals are a diff of the frame's variables, and its line is one the frame's flow
      allows next; from a line, the diff leaves out variables the line cannot change (see
      :meth:`LineFlow.unchanged`); a diff shows a variable only with another value than the
      last state's, and null only for one it had.
    """
    last = states[-1]
    call_names = flow.names_by_call_text(source.lines)
    here = source.by_text.get(last.src or "", [])  # every line the last state may stand on
    if action.kind.is_inverse or last.kind.is_inverse:
        backward = _expect_backward(flow, source, states, actions, action, call_names)
        # a step back reaches the module frame's call (which shows no variables) only from
        # the module's own lines or from a call state, whose caller it may be
        module = last.kind is StateKind.INV_CALL or not flow.in_functions(here)
        return replace(
            backward,
            call_required=flow.required_by_call_text(source.lines, module),
            call_fixed=flow.passed_by_call_text(source.lines, entry_text(states)),
            call_likely=flow.likely_by_call_text(source.lines),
        )
    if last.kind is StateKind.RETURN and flow.in_the_module(here):
        # the module frame returned (the top frame): whatever the action, the run is over
        return Expected(dict.fromkeys(_SHOWN_AT, frozenset[str]()))
    forward = _expect_forward(flow, source, states, actions, action, call_names)
    # a forward action never comes back to the module frame's call, the run's first event
    forward = replace(
        forward,
        call_required=flow.required_by_call_text(source.lines, False),
        call_fixed=_passed(flow, source, states, action, here),
        call_likely=flow.likely_by_call_text(source.lines),
    )
    made = _comprehension_call(flow, source, states, actions, action)
    if made is not None:  # a comprehension's call: exactly the names it shows, as fixed
        text, shown = made
        keys = frozenset(shown)
        forward = replace(
            forward,
            call_names={**forward.call_names, text: keys},
            call_required={**forward.call_required, text: keys},
            call_fixed={**forward.call_fixed, text: shown},
        )
    if action.kind in _STEPS_ON and not _top_frame_returned(flow, source, states, here):
        # a run ends (but by the tracer's limits) only after its top frame's return event
        ended = dict.fromkeys((StateKind.EXIT_NORMAL, StateKind.EXIT_ERROR), frozenset[str]())
        forward = replace(forward, lines={**forward.lines, **ended})
    forward = _in_the_module(flow, source, forward)
    forward = _defined_in_the_frame(flow, source, forward)
    forward = replace(forward, return_shapes=_return_shapes(flow, source, states, action))
    forward = _variables_of_the_function(flow, source, forward, entry_text(states))
    return _kept_by_the_function(flow, source, forward, entry_text(states))


def _variables_of_the_function(
    flow: LineFlow, source: SourceMap, expected: Expected, entry: str | None
) -> Expected:
    """``expected`` with the kinds of value a plain function's variables can hold
    (:meth:`LineFlow.variable_shapes`), where every line a line state may show is one of
    that function's own frame."""
    texts = expected.lines.get(StateKind.LINE)
    if not texts:
        return expected
    numbers = [n for text in texts for n in source.by_text.get(text, [])]
    shapes = flow.variable_shapes(numbers, source.lines, entry)
    return replace(expected, shapes=shapes) if shapes else expected


def _return_shapes(
    flow: LineFlow, source: SourceMap, states: tuple[State, ...], action: Action
) -> Mapping[str, Shape]:
    """What a return state may show by its line (:meth:`LineFlow.return_shapes`). A frame an
    exception leaves returns too, with ``None``, on the line that raised; only a step into
    or over from a line or a call lands on a return with no exception state of the frame
    between, so that one alone returns what a ``return`` gives, unless the frame's code can
    re-raise (:func:`.value_shapes.reraising_lines`)."""
    stepped = action.kind in (ActionKind.STEP_INTO, ActionKind.STEP_OVER)
    last = states[-1]
    here = source.by_text.get(last.src or "", [])
    returned = stepped and last.kind in (StateKind.LINE, StateKind.CALL)
    raised = not returned or bool(flow.reraising_lines.intersection(here))
    shapes = flow.return_shapes(source.lines, entry_text(states), raised)
    # on a line making frames of its own, a return may be a comprehension's or a lambda's
    return {
        text: shape
        for text, shape in shapes.items()
        if not flow.makes_frames(source.by_text.get(text, []))
    }


def _defined_in_the_frame(flow: LineFlow, source: SourceMap, expected: Expected) -> Expected:
    """``expected`` with the functions a frame's own ``def`` and ``lambda`` statements bind
    fixed (:meth:`LineFlow.defined_at`), where every line a line state may show is of that
    one function's code."""
    texts = expected.lines.get(StateKind.LINE)
    if not texts:
        return expected
    defined = flow.defined_at(n for text in texts for n in source.by_text.get(text, []))
    return replace(expected, fixed={**defined, **expected.fixed}) if defined else expected


# The entry text (:func:`entry_text`) of a run that starts with the module's call.
MODULE_ENTRY = "<module>"


def entry_text(states: tuple[State, ...]) -> str | None:
    """The source text of the run's first event, a call: the module's, or a function's called
    from outside the code (None: the history does not start with a call). A call that shows
    no variables is the module's (or a function's without parameters, which no rule on
    parameters concerns): then :data:`MODULE_ENTRY`, which is no line's text, so that a
    ``def`` on the module's first line is not taken for the entry."""
    first = states[0]
    if first.kind is not StateKind.CALL or first.src is None:
        return None
    return first.src if first.locals else MODULE_ENTRY


def first_hit(
    flow: LineFlow,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    target: str,
    targets: list[int],
) -> bool:
    """Whether a breakpoint jump to ``target`` (the source text of ``targets``) lands on the
    run's first line event on it (:meth:`LineFlow.names_first_at`). The history must start
    at the run's first event (a call) and show no state on the target, and none of its
    actions may have skipped an event there: a step back, a jump to another line, or, unless
    the module's own code runs on every target line, a step over (its callees' events) or
    out (the frame's rest). A step over or out skips no event of the module's frame, and the
    other code on its lines is made there, after the module's frame has fired them."""
    if states[0].kind is not StateKind.CALL or any(s.src == target for s in states):
        return False
    skipping = (ActionKind.STEP_OVER, ActionKind.STEP_RETURN)
    in_module = all(flow.module_runs(n) for n in targets)
    for taken in actions:
        if taken.kind is ActionKind.BREAKPOINT and taken.target == target:
            continue
        if taken.kind is not ActionKind.STEP_INTO and not (taken.kind in skipping and in_module):
            return False
    return True


def _passed(
    flow: LineFlow, source: SourceMap, states: tuple[State, ...], action: Action, here: list[int]
) -> Mapping[str, Mapping[str, str]]:
    """The parameter values a call state shows, by its source text: those every call of the
    function passes alike (not the run's entry's, called from outside), and after a step into
    from a line (on one of ``here``), those the line's own calls pass, literals or the values
    the line state showed of the variables given (:mod:`.passed_arguments`)."""
    every = flow.passed_by_call_text(source.lines, entry_text(states))
    if states[-1].kind is not StateKind.LINE or action.kind is not ActionKind.STEP_INTO:
        return every
    shown = standalone(states, len(states) - 1).locals  # the caller's variables
    texts = flow.def_texts(source.lines)
    found = dict[str, Mapping[str, str]](every)
    constants, builtins = flow.module_constants.literals, flow.call_sites.builtins_kept

    def compute(line: int, node: ast.expr) -> str | None:  # an argument's value, if known
        if shown is None:
            return None
        local = flow.local_names.get(line)
        try:
            value = evaluate(node, Values(shown, constants, builtins, local))
        except Undecided:
            return None
        text = shown_text(value)
        return None if text is None or text.endswith(CUT_MARKER) else text

    for number, values in flow.passed.on_lines(here, shown, compute).items():
        text = texts.get(number)
        if values and text is not None:
            found[text] = {**found.get(text, {}), **values}
    return found


def _kept_by_the_function(
    flow: LineFlow, source: SourceMap, expected: Expected, entry: str | None
) -> Expected:
    """``expected`` with the parameters of :func:`kept_parameters` fixed."""
    kept = kept_parameters(flow, source, expected, entry)
    return replace(expected, fixed={**kept, **expected.fixed}) if kept else expected


def kept_parameters(
    flow: LineFlow, source: SourceMap, expected: Expected, entry: str | None
) -> dict[str, str]:
    """The parameters a plain function's frame keeps as every call passes them
    (:meth:`.passed_arguments.PassedArguments.kept`), where every line a line state may show
    is one of that function's own frame, and the function is not the run's entry (``entry``:
    the source text of the run's first event; None: not known, then none); and those it
    rebinds, but only after those lines (:meth:`LineFlow.stored_before`)."""
    texts = expected.lines.get(StateKind.LINE)
    if not texts or entry is None:
        return {}
    numbers = [n for text in texts for n in source.by_text.get(text, [])]
    function = flow.call_sites.function_at(numbers)
    if function is None or source.lines[function - 1] == entry:
        return {}
    kept = flow.passed.kept(function)
    stored = flow.stored_before(numbers)  # a parameter the frame rebinds only later
    if stored is not None:
        readable = flow.passed.readable(function).items()
        kept |= {name: text for name, text in readable if name not in stored}
    return kept


def _in_the_function(
    flow: LineFlow, source: SourceMap, expected: Expected, function: int, entry: str | None
) -> Expected:
    """``expected`` for a breakpoint's first hit in the frame of the plain function on
    ``function`` (:meth:`LineFlow.first_hit_function`): the parameters it keeps as every call
    passes them, and the kinds its variables can hold, as for a line of its code alone
    (:func:`kept_parameters`, :meth:`LineFlow.variable_shapes`); none where it is the run's
    entry (``entry``: the run's first event's text; None: not known), called from outside."""
    if entry is None or source.lines[function - 1] == entry:
        return expected
    kept = flow.passed.kept(function)
    shapes = flow.function_shapes(function, source.lines, entry)
    return replace(expected, fixed={**kept, **expected.fixed}, shapes={**shapes, **expected.shapes})


def _top_frame_returned(
    flow: LineFlow, source: SourceMap, states: tuple[State, ...], here: list[int]
) -> bool:
    """Whether the last state, on one of the lines ``here``, may be the return of the run's
    top frame, after which the run ends. Not a return: no. A return on lines that only
    functions run is a function's, which has a caller, unless that function is the top frame:
    an entry call's wrapper, the one the run's first state (a call, the history's first state)
    opened. A history that does not start with a call, or a return elsewhere (the module's, a
    class body's): it may be."""
    last, first = states[-1], states[0]
    if last.kind is not StateKind.RETURN:
        return False
    if first.kind is not StateKind.CALL or not flow.in_functions(here):
        return True
    opened = source.by_text.get(first.src or "", [])
    tops = [scope for scope in source.scopes if scope.header in opened]
    return any(scope.header <= n <= scope.end for scope in tops for n in here)


def _bound_at(flow: LineFlow, lines: list[int]) -> frozenset[str]:
    """Variables surely bound when a frame stands on one of ``lines``: a function's (see
    :meth:`LineFlow.names_surely_at`), or at the module's own lines its constants bound by
    top-level statements before them."""
    if flow.in_the_module(lines):
        return flow.module_constants.bound_at(lines)
    return flow.names_surely_at(lines)


def _in_the_module(
    flow: LineFlow, source: SourceMap, expected: Expected, module: bool = False
) -> Expected:
    """``expected`` with what the module's constants fix, where every line a line state may
    show is one only the module's frame runs (or ``module``: the state is known to be the
    module frame's): their values wherever they are shown, and, in whole locals, the names
    bound by top-level statements before those lines."""
    texts = expected.lines.get(StateKind.LINE)
    if not texts:
        return expected
    numbers = [n for text in texts for n in source.by_text.get(text, [])]
    if not (module or flow.in_the_module(numbers)):
        return expected
    constants = flow.module_constants
    if not constants.values:
        return expected
    names = expected.names
    required = constants.bound_at(numbers) if expected.diff is False else frozenset()
    if names is not None:
        required = required & names
    fixed = {**constants.values, **expected.fixed}
    return replace(expected, fixed=fixed, required=expected.required | required)


def _expect_forward(
    flow: LineFlow,
    source: SourceMap,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    action: Action,
    call_names: Mapping[str, frozenset[str]],
) -> Expected:
    """:func:`expect` for a forward action from a forward state."""
    last = states[-1]
    if action.kind is ActionKind.BREAKPOINT and action.target is not None:
        targets = [n for n, text in enumerate(source.lines, start=1) if text == action.target]
        first = first_hit(flow, states, actions, action.target, targets)
        names = flow.names_first_at(targets) if first else flow.names_at(targets)
        surely = flow.names_surely_first_at(targets) if first else flow.names_surely_at(targets)
        landing = Expected(
            dict.fromkeys(_SHOWN_AT, frozenset({action.target})),
            diff=False,
            names=names,
            call_names=call_names,
            required=_within(surely, names),
        )
        if _no_hit_left(flow, source, last, targets):  # only the run's end can come
            return Expected(dict.fromkeys(_SHOWN_AT, frozenset[str]()))
        # a first hit of a line the module runs is the module frame's, even where a lambda
        # or a comprehension made there runs too; so is a plain function's
        module = first and all(flow.module_runs(n) for n in targets)
        if module:
            return _in_the_module(flow, source, landing, module=True)
        owner = flow.first_hit_function(targets) if first else None
        if owner is None:
            return landing
        return _in_the_function(flow, source, landing, owner, entry_text(states))
    if action.kind is ActionKind.STEP_RETURN and last.kind in (StateKind.LINE, StateKind.CALL):
        # the frame's own return event, on a line of its code (or the run's end)
        called = last.kind is StateKind.CALL
        here = source.by_text.get(last.src or "", [])
        anonymous = None
        if last.kind is StateKind.LINE and flow.anonymous_on(here) is None:  # both kinds there
            located = _seen(source, states, actions)  # the history tells which frame it is
            if located is not None:
                anonymous = _anonymous_frame(flow, located, _landed(actions))
        own = flow.return_lines(here, called, anonymous)
        out = {
            kind: frozenset[str]() for kind in (StateKind.CALL, StateKind.LINE, StateKind.EXCEPTION)
        }
        if own is not None:
            out[StateKind.RETURN] = _texts(source, own)
        return Expected(out, call_names=call_names)
    lines = {StateKind.CALL: _texts(source, flow.starts)} if flow.starts else {}
    if last.kind is StateKind.RETURN:  # the next line is the caller's, after its call
        located = _seen(source, states, actions)
        callers = _caller_lines(source, located)
        # the returning frame's lines: where the history placed it (a frame opened on a
        # ``def`` line, not a lambda's or a comprehension's); after a jump, every line of its
        # text, for which the code lists the callers only if they are a plain function's own
        returning = source.by_text.get(last.src or "", [])
        anonymous = None  # whether the caller is a comprehension's or a lambda's frame
        if callers:
            assert located is not None  # callers are where the history placed the frames
            on_def = located.named[-1:] == (True,)
            returning = [located.line] if on_def and located.line is not None else []
            anonymous = _anonymous_caller(flow, located, _landed(actions))
        else:  # the history did not see the call: the code may list the callers
            callers = sorted(flow.call_sites.returning_to(returning) or ())
        # the caller goes on normally: an exception after the return would be a state first
        stepping = action.kind in _STEPS
        names = _names_after(flow, callers, stepping, caller=True, anonymous=anonymous)
        if not stepping:
            return Expected(lines, diff=False, names=names, call_names=call_names)
        lines.update(_lines_after(flow, source, callers, True, caller=True, anonymous=anonymous))
        if callers:  # the caller raises or returns at once only on the call's own line,
            # or, from a ``with`` line whose ``__exit__`` passed an exception on, on the line
            # in its body that raised it, where Python places the frame again
            bodies = flow.with_bodies(callers)
            lines[StateKind.EXCEPTION] = _texts(source, [*callers, *bodies])
            # a return with no exception first needs a return the line reaches before another
            # line fires (``return f(x)``, a function's last line); ``x = f()`` goes on
            returns = [n for n in callers if flow.returning([n]) is not False]
            lines[StateKind.RETURN] = _texts(source, [*returns, *bodies])
            entered = flow.call_sites.entered_from(callers)
            if entered is not None:  # the rest of the line calls only what the line calls,
                # and not again a function the line calls once, whose call just returned
                start = flow.call_sites.function_at(returning)
                if start is not None and flow.call_sites.called_once(callers, start):
                    entered = entered - {start}
                lines[StateKind.CALL] = _texts(source, entered)
            if _entered_with(flow, source, returning, callers):  # the body's first line next
                firsts = [min(flow.with_bodies([n])) for n in callers]
                lines[StateKind.LINE] = _texts(source, firsts)
                lines[StateKind.RETURN] = frozenset()
        required = _required_after(flow, callers, names, True, caller=True, anonymous=anonymous)
        receiver = _handed_back(flow, source, returning, callers)
        fixed: dict[str, str] = {}
        returned = None
        if receiver is not None and last.value is not None:
            if receiver.target is None:  # ``return f(x)``: the caller returns the same value
                returned = last.value
            else:
                target = receiver.target
                fixed = {target: last.value}
                shown = names is not None and target in names and len(names) < MAX_VARIABLES
                if shown and not last.value.startswith("<module "):  # hidden at the top level
                    required |= {target}
        built, way = (
            (None, None) if returning else _after_frames(flow, source, states, actions, callers)
        )
        if built is not None:  # what the line computes once the frames it made returned
            returned, fixed = built.returned, built.shown
            if names is not None and len(names) < MAX_VARIABLES:
                required |= {name for name in fixed if name in names}
        if way is not None and stepping:  # where the head they were made on leads
            lines[StateKind.LINE] = way.texts
            lines[StateKind.RETURN] = lines[StateKind.EXCEPTION] = frozenset()
            fixed = {**fixed, **way.shown}
            if names is not None and len(names) < MAX_VARIABLES:
                required |= {name for name in way.shown if name in names}
        return Expected(
            lines,
            diff=False,
            names=names,
            call_names=call_names,
            required=required,
            fixed=fixed,
            returned=returned,
        )
    here = source.by_text.get(last.src or "", [])  # every line the last state may stand on
    if last.kind is StateKind.EXCEPTION:  # a handler of the same frame
        names = _names_after(flow, here)
        required = frozenset()
        if action.kind in _STEPS:
            lines.update(_lines_after(flow, source, here))
            required = _required_after(flow, here, names)
        return Expected(lines, diff=False, names=names, call_names=call_names, required=required)
    if action.kind not in _STEPS or last.kind not in (StateKind.LINE, StateKind.CALL):
        return Expected(lines, call_names=call_names)
    inside = _in_comprehension(flow, source, states, actions)
    if inside is not None:  # a comprehension's own frame, its turns fixed
        return replace(inside, call_names=call_names)
    # a diff holds what the frame has bound at the next line, and what it had (now unbound)
    kept: frozenset[str] = frozenset()
    before = standalone(states, len(states) - 1).locals or {}
    if last.kind is StateKind.LINE:  # an exception on the way would be a state of its own
        following, had = flow.following_any(here, normally=True), flow.names_at(here)
        kept = flow.unchanged(here, before)
    else:
        following, had = flow.first_lines_any(here), frozenset(last.locals or ())
    names = flow.names_at(following) if following else None
    if last.kind is StateKind.LINE and action.kind is ActionKind.STEP_INTO:
        entered = flow.call_sites.entered_from(here)  # a call only into what the line calls
        if entered is not None and entered & flow.call_sites.lone_comprehensions:
            # a comprehension's own frame does not call the comprehension again
            located = _seen(source, states, actions)
            if located is not None and located.named[-1:] == (False,):
                entered = entered - flow.call_sites.lone_comprehensions
        if entered is not None:
            lines[StateKind.CALL] = _texts(source, entered)
    unchanged = {}
    if following:
        lines[StateKind.LINE] = _texts(source, following)
        unchanged = dict.fromkeys(lines[StateKind.LINE], kept) if kept else {}
    elif following is not None and last.kind is StateKind.LINE:
        lines[StateKind.LINE] = frozenset()  # no line of this frame follows: it returns or raises
    if last.kind is StateKind.LINE and flow.returning(here) is False:
        lines[StateKind.RETURN] = frozenset()  # another line comes before the frame returns
    elif last.kind is StateKind.LINE and here:  # it returns where it stands (moving to
        # another line fires that line first), or, from a ``with`` line whose ``__exit__``
        # passed an exception on, on the body's line that raised it, as Python 3.11 shows
        lines[StateKind.RETURN] = _texts(source, [*here, *flow.with_bodies(here)])
    into = last.kind is StateKind.LINE and action.kind is ActionKind.STEP_INTO
    if into and flow.calls_before_line(here):  # a call of the code's comes before a line
        lines[StateKind.LINE] = frozenset()
    if into and flow.call_sites.surely_calling(here):  # it calls code of the program first
        lines[StateKind.LINE] = lines[StateKind.RETURN] = frozenset()
        if flow.call_sites.surely_entering(here, _bound_at(flow, here)):  # nothing raises first
            lines[StateKind.EXCEPTION] = frozenset()
    if names is None or had is None:  # not known: any variable of the frame
        frame = flow.names_on if last.kind is StateKind.LINE else flow.names_starting_any
        names = frame(here)
    else:
        names |= had
    lined = last.kind is StateKind.LINE
    # a line making frames of its own (a lambda's, a comprehension's): the rules below read the
    # line's own frame, and a step into may enter those frames before the line's end
    mine = lined and in_the_lines_frame(flow, source, states, actions)
    entering = lined and action.kind is ActionKind.STEP_INTO and flow.makes_frames(here)
    calls = lines.get(StateKind.CALL)
    computed = computed_effects(flow, here, before) if mine else None
    fixed = _copied(flow, here, before) if lined else {}
    if computed is not None:  # what the line computes; a copy's own rule agrees, and knows
        fixed = {**computed.shown, **fixed}  # cut values too
    branch = branch_lines(flow, source, states, actions, here, before) if mine else None
    if branch is not None and branch.returns:  # ``if TEST: return X``, its test holding
        nothing = frozenset[str]()
        lines = {StateKind.CALL: nothing, StateKind.LINE: nothing, StateKind.EXCEPTION: nothing}
        lines[StateKind.RETURN] = _texts(source, here)
    elif branch is not None:  # a head whose way the values shown fix: only that way's lines,
        # where nothing changes but the targets of a ``for`` entering its body (the body of
        # an ``if`` on its own line runs too: what it calls, binds or raises the model writes)
        previous = lines
        lines = dict.fromkeys((StateKind.CALL, StateKind.RETURN, StateKind.EXCEPTION), frozenset())
        lines[StateKind.LINE] = branch.texts
        if branch.binding is None:  # the body may call or raise, as the line allowed before
            for kind in _UNSETTLED:
                if kind in previous:
                    lines[kind] = previous[kind]
                else:
                    del lines[kind]
        fixed = {**fixed, **branch.shown}
        loose = flow.unbound_by_the_way(here)
        if MORE_VARIABLES_KEY not in before and branch.binding is not None and loose is not None:
            still = frozenset(before) - branch.binding - loose
            unchanged = dict.fromkeys(branch.texts, still)
            names = frozenset(before) | branch.binding
    returned = _returned(flow, here, before) if last.kind is StateKind.LINE else None
    if returned is None and computed is not None:
        returned = computed.returned
    if returned is None and branch is not None:
        returned = branch.value
    if returned is not None:  # ``return total``: the frame returns it there, nothing else
        nothing = frozenset[str]()
        lines = {StateKind.CALL: nothing, StateKind.LINE: nothing, StateKind.EXCEPTION: nothing}
        lines[StateKind.RETURN] = _texts(source, here)
    elif computed is not None:  # it runs no code of the program's and raises nothing, and
        # changes nothing but what it binds or changes
        lines = {**lines, StateKind.CALL: frozenset(), StateKind.EXCEPTION: frozenset()}
        loose = flow.unbound_by_the_way(here)
        if MORE_VARIABLES_KEY not in before and loose is not None:
            still = _untouched(before, computed.touched) - loose
            for text in lines.get(StateKind.LINE, frozenset()):
                unchanged = {**unchanged, text: unchanged.get(text, frozenset()) | still}
    if branch is not None and not branch.starts:
        entering = False  # a loop going on makes no frame of its iterable's again
    if entering and (branch is not None or returned is not None or computed is not None):
        # the line's frames first
        lines = {k: v for k, v in lines.items() if k is not StateKind.CALL}
        if calls is not None:
            lines[StateKind.CALL] = calls
    return Expected(
        lines,
        diff=True,
        names=names,
        call_names=call_names,
        unchanged=unchanged,
        before=before,
        fixed=fixed,
        required=_changed(fixed, before, names),
        returned=returned,
    )


def _no_hit_left(flow: LineFlow, source: SourceMap, last: State, targets: list[int]) -> bool:
    """Whether a breakpoint on ``targets`` cannot be hit again: the last state stands on a
    line only the module's frame runs (so no other frame is open), every target is in code
    only calls reach, and no line the module can still reach calls, directly or through the
    code's other functions, what holds a target (:meth:`.call_sites.CallSites.returning_to`;
    any caller it cannot name leaves the jump open)."""
    here = source.by_text.get(last.src or "", [])
    if last.kind is not StateKind.LINE or not targets or not flow.in_the_module(here):
        return False
    callers: set[int] = set()  # lines of the module that lead into a target's frame
    seen, todo = set(targets), list(targets)
    while todo:
        line = todo.pop()
        if flow.module_runs(line):
            if not flow.in_the_module([line]) or line in targets:
                return False  # a line the module shares with another frame, or runs itself
            callers |= {line, *flow.statement_starts.get(line, ())}
            continue
        calling = flow.call_sites.returning_to([line])
        if calling is None:
            return False
        todo.extend(calling - seen)
        seen |= calling
    reachable = flow.reachable_from(here)
    return reachable is not None and not reachable & callers


def branch_lines(
    flow: LineFlow,
    source: SourceMap,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    here: list[int],
    before: Mapping[str, str | None],
) -> Branch | None:
    """Where a step from a branch head goes, where the values it shows fix it
    (:mod:`.branches`): the texts of the lines it can reach, and the values a ``for``'s
    targets show there; None where any line ``here`` is no head, or its way is open. A
    ``for``'s way is read from the turns the history counts where it shows the loop's run
    (:func:`loop_turns`), else from the item its targets hold."""
    heads = flow.branch_heads
    if not here or any(line not in heads for line in here):
        return None
    last, arrived = states[-1], list[int]()
    if len(states) > 1 and last.diff and states[-2].kind in (StateKind.LINE, StateKind.CALL):
        arrived = source.by_text.get(states[-2].src or "", [])  # a diff: the same frame
    constants, builtins = flow.module_constants.literals, flow.call_sites.builtins_kept
    texts: set[str] = set()
    shown: list[Mapping[str, str]] = []
    binding: set[str] | None = set()
    returning: list[Head] = []  # heads whose way is their own line's ``return``
    starts = False
    for line in here:
        head = heads[line]
        values = Values(before, constants, builtins, head.local)
        turns = loop_turns(source, states, actions, head) if head.iterable is not None else None
        try:
            if turns is None:
                found = way(head, values, arrived)
            else:
                done, start = turns
                started = Values(standalone(states, start).locals or {}, constants, builtins,
                                 head.local)  # fmt: skip
                found = way_after_turns(head, done, started, values)
        except Undecided:
            return None
        following = flow.following(line, normally=True) or frozenset()
        if head.inline:  # the body runs on the head's own line
            if found.into and head.inline == "return":
                returning.append(head)
                continue
            if found.into:
                binding = None  # what the body binds, the model writes
                reached = set(following) - {head.orelse} if head.orelse else set(following)
            else:
                reached = {head.orelse} if head.orelse else set(following)
        else:
            reached = {head.body} if found.into else set(following - {head.body})
        if not reached or not reached <= following:
            return None
        texts |= _texts(source, reached)
        shown.append(found.shown)
        starts = starts or found.starts
        if binding is not None:
            binding |= set(head.targets) if found.into else set()
    if returning and (texts or len(returning) < len(here)):
        return None  # a return on some lines the state may stand on, a line on others
    same = all(s == shown[0] for s in shown)
    value = _inline_return(returning, before, constants, builtins) if returning else None
    return Branch(
        frozenset(texts),
        dict(shown[0]) if same and shown else {},
        None if binding is None else frozenset(binding),
        returns=bool(returning),
        value=value,
        starts=starts or bool(returning),
    )


def _inline_return(
    heads: list[Head],
    before: Mapping[str, str | None],
    constants: Mapping[str, object],
    builtins: frozenset[str],
) -> str | None:
    """The value ``if TEST: return X`` returns, where the values shown compute it (the same
    on every line the state may stand on; None: not known)."""
    found: set[str] = set()
    for head in heads:
        returned = head.returned
        try:
            value = (
                None
                if returned is None
                else evaluate(returned, Values(before, constants, builtins, head.local))
            )
        except Undecided:
            return None
        text = shown_text(value)
        if text is None:
            return None
        found.add(text)
    return found.pop() if len(found) == 1 else None


@dataclass(frozen=True)
class Branch:
    """Where a step from a branch head whose way is fixed goes (:func:`branch_lines`).

    A head's test or iterable is what the evaluator computed, which binds nothing, so the step
    changes no variable but a ``for``'s targets as it enters the body."""

    texts: frozenset[str]  # the lines it can reach
    shown: dict[str, str]  # the values a ``for``'s targets show there
    binding: frozenset[str] | None  # the only names the step may bind (None: not known)
    returns: bool = False  # ``if TEST: return X`` with its test holding: the frame returns
    value: str | None = None  # what it returns, where the values shown compute it
    starts: bool = True  # the head's expression runs (a ``for`` going on makes no iterable)


def loop_turns(
    source: SourceMap, states: tuple[State, ...], actions: tuple[Action, ...], head: Head
) -> tuple[int, int] | None:
    """How far the run of the ``for`` loop whose head the last state stands on has gone, where
    the history shows it whole: the turns it made (its earlier arrivals at the head since it
    began) and the index of the state where it began (the frame's first arrival at the head
    since it stood outside the loop, or since its call). None where the history leaves it
    open: a jump or a step out on the way, a window that starts within the run, a line whose
    text other lines share, or a generator's frame (it resumes with a call of its own).

    Walking back from the last state, the frame's own states are those at its depth: a return
    seen there is a frame below returning (entered by a call further back), and a call there
    is the frame's own."""
    if head.generator or len(actions) != len(states) - 1:
        return None
    done, start, depth = 0, len(states) - 1, 0
    for k in range(len(states) - 2, -1, -1):
        state, action = states[k], actions[k]
        stepped = action.kind in _STEPS or (
            action.kind is ActionKind.STEP_RETURN and state.kind in (StateKind.LINE, StateKind.CALL)
        )
        if not stepped:
            return None
        if state.kind is StateKind.RETURN:
            depth += 1
            continue
        if state.kind is StateKind.CALL:
            if depth == 0:
                return done, start  # the frame's call: the loop began in this call
            depth -= 1
            continue
        if depth > 0:
            continue
        if state.kind not in (StateKind.LINE, StateKind.EXCEPTION):
            return None
        lines = source.by_text.get(state.src or "", [])
        if lines and all(n == head.line for n in lines) and state.kind is StateKind.LINE:
            done, start = done + 1, k
        elif lines and all(head.body <= n <= head.loop_end for n in lines):
            continue  # the loop's body
        elif lines and all(not head.line <= n <= head.loop_end for n in lines):
            return done, start  # the frame stood outside the loop: the run began after it
        else:
            return None
    return None


def in_the_lines_frame(
    flow: LineFlow, source: SourceMap, states: tuple[State, ...], actions: tuple[Action, ...]
) -> bool:
    """Whether the last state stands in the frame its line's statement runs in, not in a
    frame the line made (a lambda's or a comprehension's, on the same line): the frame the
    rules reading a line's statement (:func:`computed_effects`, :func:`branch_lines`) are
    about. Where the line makes such frames the history must tell."""
    here = source.by_text.get(states[-1].src or "", [])
    if not flow.makes_frames(here):
        return True
    located = _seen(source, states, actions)
    return located is not None and _anonymous_frame(flow, located, _landed(actions)) is False


def computed_effects(
    flow: LineFlow, here: list[int], before: Mapping[str, str | None]
) -> Effects | None:
    """What a step from a line the values shown on it compute shows (:mod:`.computed`), every
    line of ``here`` alike (None: not such a line, or not known)."""
    found = {line: flow.computing.get(line) for line in here}
    if not found or any(c is None for c in found.values()):
        return None
    results = set()
    for computing in found.values():
        assert computing is not None
        values = Values(
            before, flow.module_constants.literals, flow.call_sites.builtins_kept, computing.local
        )
        result = effects(computing, values)
        if result is None:
            return None
        results.add((tuple(sorted(result.shown.items())), result.returned, result.touched))
    if len(results) != 1:
        return None
    shown, returned, touched = results.pop()
    return Effects(dict(shown), returned, touched)


def _returned(flow: LineFlow, here: list[int], before: Mapping[str, str | None]) -> str | None:
    """The value a step from a line that only returns a variable or a literal (``return
    total``, every line of ``here`` alike) returns: the variable's in ``before`` where it is
    shown whole, or the literal's text (None: not such a line, or not known)."""
    copied = _alike(flow.returns, here)
    return None if copied is None else _value_of(copied, before)


def _comprehension_on(
    flow: LineFlow, source: SourceMap, text: str | None
) -> tuple[int, Made] | None:
    """The comprehension of the one line ``text`` stands for (:attr:`LineFlow.comprehensions`)."""
    lines = source.by_text.get(text or "", [])
    if len(lines) != 1 or lines[0] not in flow.comprehensions:
        return None
    return lines[0], flow.comprehensions[lines[0]]


def _iterated(made: Made, values: Values) -> object:
    """The value a comprehension's first iterable takes (:class:`Undecided`: not known, or one
    whose items or iterator the tracer does not show as this module reads them)."""
    node = made.node.generators[0].iter
    first = evaluate(node, values)
    in_order(first)  # items in the order its text shows (:class:`Undecided` otherwise)
    if holds_a_set(first):
        raise Undecided("a set")
    # Python's compiler makes a list display iterated there a tuple (a constant, if it can)
    return tuple(cast(list[object], first)) if isinstance(node, ast.List) else first


def _comprehension_call(
    flow: LineFlow,
    source: SourceMap,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    action: Action,
) -> tuple[str, dict[str, str]] | None:
    """A step into from a line whose comprehension is the only frame it can enter: the call
    state of that comprehension's frame shows ``.0``, the iterator over its first iterable
    (computed from the caller's values), and the function's names it reads, as the caller
    has them. None where the line is no such line or the values do not tell."""
    last = states[-1]
    if action.kind is not ActionKind.STEP_INTO or last.kind is not StateKind.LINE:
        return None
    found = _comprehension_on(flow, source, last.src)
    if found is None or not in_the_lines_frame(flow, source, states, actions):
        return None
    line, made = found
    entered = flow.call_sites.entered_from([line])
    if not (entered is not None and entered <= {line}) and line not in flow.calling_no_code:
        return None  # the line may call the program's code (first)
    before = standalone(states, len(states) - 1).locals or {}
    values = Values(
        before, flow.module_constants.literals, flow.call_sites.builtins_kept, made.local
    )
    try:
        first = _iterated(made, values)
    except Undecided:
        return None
    shown = {".0": render_value(iter(first))}  # type: ignore[call-overload]
    for name in made.free:
        text = before.get(name)
        if text is None or MORE_VARIABLES_KEY in before:
            return None
        shown[name] = text
    return source.lines[line - 1], shown


def _in_comprehension(
    flow: LineFlow, source: SourceMap, states: tuple[State, ...], actions: tuple[Action, ...]
) -> Expected | None:
    """A step in a comprehension's own frame (:attr:`LineFlow.comprehensions`) whose call the
    history shows, the caller's line state just before it: after the call, a line event with
    nothing bound; after the ``k``-th line event, one with the targets bound to the ``k``-th
    item; after the last, its return, what it built. Items and value are computed from the
    caller's values (the whole comprehension evaluates, so no other code runs in it)."""
    last = states[-1]
    found = _comprehension_on(flow, source, last.src)
    if found is None:
        return None
    _, made = found
    call = len(states) - 1
    while call > 0 and states[call].kind is StateKind.LINE and states[call].src == last.src:
        call -= 1
    if states[call].kind is not StateKind.CALL or states[call].src != last.src or call == 0:
        return None
    caller = states[call - 1]
    if caller.kind is not StateKind.LINE or caller.src != last.src:
        return None
    if any(a.kind not in _STEPS for a in actions[call - 1 :]):
        return None
    before = standalone(states, call - 1).locals or {}
    constants, builtins = flow.module_constants.literals, flow.call_sites.builtins_kept
    values = Values(before, constants, builtins, made.local)
    try:
        items = list(_iterated(made, values))  # type: ignore[call-overload]
        built = evaluate(made.node, values)
    except Undecided:
        return None
    turns = len(states) - 1 - call  # the frame's line events so far
    text = frozenset({last.src or ""})
    nothing = frozenset[str]()
    if turns > len(items):  # all done: it returns what it built
        value = shown_text(built)
        lines = {StateKind.CALL: nothing, StateKind.LINE: nothing, StateKind.EXCEPTION: nothing}
        return Expected({**lines, StateKind.RETURN: text}, returned=value)
    shown: dict[str, str] = {}
    if turns > 0:
        item = items[turns - 1]
        parts = item if made.tuple_target else (item,)
        if made.tuple_target and not (isinstance(item, tuple) and len(item) == len(made.targets)):
            return None
        shown = {name: render_value(part) for name, part in zip(made.targets, parts, strict=True)}
    frame = standalone(states, len(states) - 1).locals or {}
    names = frozenset(made.targets)
    lines = {StateKind.CALL: nothing, StateKind.RETURN: nothing, StateKind.EXCEPTION: nothing}
    return Expected(
        {**lines, StateKind.LINE: text},
        diff=True,
        names=names,
        before=frame,
        fixed=shown,
        required=_changed(shown, frame, names),
    )


def _untouched(before: Mapping[str, str | None], touched: frozenset[str]) -> frozenset[str]:
    """The variables of ``before`` a computed line leaves as they are: all but those it binds
    or changes, and but any showing the same text as one it changes in place (which may be
    the same list or dict under another name; another text is surely another object)."""
    changed_texts = {before.get(name) for name in touched} - {None}
    return frozenset(
        name for name, text in before.items() if name not in touched and text not in changed_texts
    )


def _changed(
    fixed: Mapping[str, str], before: Mapping[str, str | None], names: frozenset[str] | None
) -> frozenset[str]:
    """The variables of ``fixed`` a diff against ``before`` must show: those whose text
    changes (not where ``before`` hid some variables, or cut the old value's text)."""
    if MORE_VARIABLES_KEY in before:
        return frozenset()
    return frozenset(
        name
        for name, value in fixed.items()
        if before.get(name) != value
        and not (before.get(name) or "").endswith(CUT_MARKER)
        and (names is None or name in names)
    )


def _copied(flow: LineFlow, here: list[int], before: Mapping[str, str | None]) -> dict[str, str]:
    """The values a step from a line that only copies (``x = y``, ``total = 0``), makes a
    generator (``g = count_up(3)``) or appends (``out.append(x)``), every line of ``here``
    alike, gives its targets: the source's value (:func:`_value_of`), the generator's text,
    or for an append, the list's text in ``before`` with it added."""
    fixed: dict[str, str] = {}
    copied_here = {
        **(_alike(flow.copies, here) or {}),
        **(_alike(flow.made_generators, here) or {}),
    }
    for target, copied in copied_here.items():
        value = _value_of(copied, before)
        if value is not None:
            fixed[target] = value
    appended = _alike(flow.appends, here)
    if appended is not None:
        items = before.get(appended.target)
        value = _value_of(appended.source, before)
        text = None if items is None or value is None else appended_text(items, value)
        if text is not None:
            fixed[appended.target] = text
    return fixed


def _alike(table: Mapping[int, _T], here: list[int]) -> _T | None:
    """What ``table`` holds for every line of ``here`` alike (None: not one thing for all)."""
    found = [table.get(line) for line in here]
    if not found or found[0] is None or any(other != found[0] for other in found):
        return None
    return found[0]


def _value_of(copied: Copied, before: Mapping[str, str | None]) -> str | None:
    """A source's value: the variable's in ``before`` where it is shown whole, or the
    literal's text."""
    value = copied.text if copied.variable is None else before.get(copied.variable)
    return None if value is None or value.endswith(CUT_MARKER) else value


def _expect_backward(
    flow: LineFlow,
    source: SourceMap,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    action: Action,
    call_names: Mapping[str, frozenset[str]],
) -> Expected:
    """What a step back fixes (the inverse tree of :mod:`neural_debugger.tracer.tree` walks one
    activation's events backwards; a line that made calls shows first as ``inv_line_call``,
    then its callees backwards, then the line itself as ``inv_line``):

    * from a line, the step lands on a line the flow leads from to this one, or on the call
      of a frame that starts on it (none for a line in the middle of a frame), and shows a
      diff of the frame's variables, less those the line it lands on cannot change (see
      :meth:`LineFlow.unchanged`);
    * from an ``inv_line_call``, stepping over its calls lands on the same line with the same
      variables: an empty diff;
    * from a return, on the line it returned from (or, for an exception leaving a ``with``
      block, on the line of a ``with`` around it), with the frame's whole locals;
    * from a callee's call, on the line that called it (or on an earlier call made from it),
      with the caller's whole locals.
    """
    last = states[-1]
    starts = {StateKind.INV_CALL: _texts(source, flow.starts)} if flow.starts else {}
    if action.kind not in _INVERSE_STEPS or not last.kind.is_inverse or last.src is None:
        return Expected(starts, call_names=call_names)
    lines = dict(starts)
    here = source.by_text.get(last.src, [])
    if last.kind is StateKind.INV_LINE:
        before = flow.preceding_any(here)
        if flow.starts and here:  # a call event comes just before only a frame's first line
            entered = set(here)
            calls = [line for line, first in flow.starts.items() if first & entered]
            lines[StateKind.INV_CALL] = _texts(source, calls)
        names = flow.names_on(here)
        unchanged: dict[str, frozenset[str]] = {}
        whole = standalone(states, len(states) - 1).locals or {}
        if before:
            texts = _texts(source, before)
            lines[StateKind.INV_LINE] = lines[StateKind.INV_LINE_CALL] = texts
            bound, had = flow.names_at(before), flow.names_at(here)
            names = names if bound is None or had is None else bound | had
            for text in texts:
                kept = flow.unchanged(source.by_text.get(text, []), whole)
                if kept:
                    unchanged[text] = kept
        elif before is not None:  # no line of this frame comes before: only its call does
            lines[StateKind.INV_LINE] = lines[StateKind.INV_LINE_CALL] = frozenset()
        return Expected(
            lines,
            diff=True,
            names=names,
            call_names=call_names,
            unchanged=unchanged,
            before=whole,
        )
    if last.kind is StateKind.INV_LINE_CALL and action.kind is ActionKind.INV_STEP_OVER:
        lines[StateKind.INV_LINE] = frozenset({last.src})
        return Expected(lines, diff=True, names=frozenset(), call_names=call_names)
    if last.kind is StateKind.INV_RETURN:
        # the line it returned from, or, for an exception leaving a ``with`` block, the line
        # of a ``with`` around it, where the context manager's ``__exit__`` ran last
        heads = flow.enclosing_withs(here)
        same = frozenset({last.src}) | _texts(source, heads)
        for kind in (StateKind.INV_LINE, StateKind.INV_LINE_CALL, StateKind.INV_EXCEPTION):
            lines[kind] = same
        names = flow.names_at([*here, *heads])
        required = _within(flow.names_surely_at([*here, *heads]), names)
        return Expected(lines, diff=False, names=names, call_names=call_names, required=required)
    if last.kind is StateKind.INV_CALL:
        callers = _caller_lines(source, _seen(source, states, actions))
        if callers:
            lines[StateKind.INV_LINE] = _texts(source, callers)
            names = flow.names_at(callers)
            required = _within(flow.names_surely_at(callers), names)
            return Expected(
                lines, diff=False, names=names, call_names=call_names, required=required
            )
    return Expected(starts, call_names=call_names)


def _entered_with(
    flow: LineFlow, source: SourceMap, returning: list[int], callers: list[int]
) -> bool:
    """Whether the last state is an ``__enter__``'s return to a ``with`` line: every line it
    may return from is in a function of that name, every line its caller may stand on heads
    a ``with`` block. The block's body (a line at least) runs before the frame can return."""
    scopes = [source.scope_of(n) for n in returning]
    entering = bool(scopes) and all(s is not None and s.name == "__enter__" for s in scopes)
    return entering and all(flow.with_bodies([n]) for n in callers)


def _landed(actions: tuple[Action, ...]) -> bool:
    """Whether the history holds a breakpoint jump (it is then followed from the landing)."""
    return any(action.kind is ActionKind.BREAKPOINT for action in actions)


def _anonymous_caller(flow: LineFlow, located: Located, landed: bool) -> bool | None:
    """Whether the caller of the frame ``located`` stands in is a comprehension's or a
    lambda's frame (True) or not (False), where the code or the history tells
    (:func:`_anonymous_frame`)."""
    if len(located.stack) < 2:
        return None
    outer = Located(located.stack[-2], located.depth - 1, located.stack[:-1], located.named[:-1])
    return _anonymous_frame(flow, outer, landed)


def _anonymous_frame(flow: LineFlow, located: Located, landed: bool) -> bool | None:
    """Whether the frame ``located`` stands in is a comprehension's or a lambda's frame
    (True), or a function's, a class body's or the module's (False). The code tells where
    only one kind has code on the frame's line; else the history: a frame opened on a ``def``
    line is named, one opened without one on the line of the frame below it is anonymous (a
    resumed generator's starts on its own ``yield`` line). Not known (None) on a ``def`` or
    ``class`` line, where a comprehension or a lambda of its defaults opens a frame the
    history counts as named, nor of the outermost frame after a jump (``landed``), which the
    history did not see open."""
    stack, named = located.stack, located.named
    if not named or stack[-1] is None:
        return None
    kind = flow.anonymous_on([stack[-1]])
    if kind is not None:
        return kind
    if flow.heads(stack[-1]) or (landed and len(named) == 1):
        return None
    if named[-1]:
        return False
    return True if len(stack) >= 2 and stack[-2] == stack[-1] else None


def _lines_after(
    flow: LineFlow,
    source: SourceMap,
    lines: list[int],
    normally: bool = False,
    caller: bool = False,
    anonymous: bool | None = None,
) -> dict[StateKind, frozenset[str]]:
    """The line a frame standing on one of ``lines`` (part-way through it, after a call
    returned or an exception was raised) can show next: the lines the flow leads to from
    there (``normally``: with no exception raised; ``caller``, ``anonymous``: a frame a call
    returned to, and its kind: :meth:`LineFlow.following`), none if it leads to none (the
    frame returns or raises on); nothing fixed if the flow does not know or no line is
    given."""
    following = flow.following_any(lines, normally, caller, anonymous) if lines else None
    return {} if following is None else {StateKind.LINE: _texts(source, following)}


def _names_after(
    flow: LineFlow,
    lines: list[int],
    normally: bool = False,
    caller: bool = False,
    anonymous: bool | None = None,
) -> frozenset[str] | None:
    """Variables the frame can show at the next line event after ``lines`` (``normally``,
    ``caller``, ``anonymous``: see :func:`_lines_after`); where the flow does not know the
    next lines, all of the frame's variables."""
    following = flow.following_any(lines, normally, caller, anonymous) if lines else None
    found = flow.names_at(following) if following else None
    return found if found is not None else (flow.names_on(lines) if lines else None)


def _required_after(
    flow: LineFlow,
    lines: list[int],
    names: frozenset[str] | None,
    normally: bool = False,
    caller: bool = False,
    anonymous: bool | None = None,
) -> frozenset[str]:
    """Variables the frame surely shows at the next line event after ``lines`` (``normally``,
    ``caller``, ``anonymous``: see :func:`_lines_after`; none where the flow does not know the
    next lines)."""
    following = flow.following_any(lines, normally, caller, anonymous) if lines else None
    return _within(flow.names_surely_at(following), names) if following else frozenset()


def _within(required: frozenset[str], names: frozenset[str] | None) -> frozenset[str]:
    """``required`` less any name the state may not show (None: any may be shown)."""
    return required if names is None else required & names


def _handed_back(
    flow: LineFlow, source: SourceMap, returning: list[int], callers: list[int]
) -> Receiver | None:
    """How the caller takes the return value of the last state (a return from one of the
    ``returning`` lines), when its line hands it on unchanged (:mod:`.handed_back`): every
    line the caller may stand on binds one variable to, or returns, the value of a call by
    the name of the function every returning line is in."""
    found = {flow.receivers.get(line) for line in callers}
    if len(found) != 1 or not returning:
        return None
    (receiver,) = found
    if receiver is None:
        return None
    for line in returning:
        function = source.scope_of(line)
        if function is None or function.name != receiver.callee:
            return None
    return receiver


def _seen(
    source: SourceMap, states: tuple[State, ...], actions: tuple[Action, ...]
) -> Located | None:
    """Where the history places the last state and the frames it saw open (see
    :class:`~neural_debugger.protocol.source_map.LineTracker`). A breakpoint jump's frames
    below the one it lands in are guessed from the code, not seen: after a jump the history
    is followed from its last landing, whose frame is then the outermost one known, and the
    frames its steps opened since have callers the history saw (``__enter__`` called from the
    ``with`` line a breakpoint stopped on)."""
    jumps = [k for k, action in enumerate(actions) if action.kind is ActionKind.BREAKPOINT]
    start = jumps[-1] + 1 if jumps else 0
    tracker = LineTracker(source)
    located = None
    for index in range(start, len(states)):
        located = tracker.locate(states[index], actions[index - 1] if index > start else None)
    return located


def _line_start(
    states: tuple[State, ...], actions: tuple[Action, ...], callers: list[int], source: SourceMap
) -> int | None:
    """The index of the caller's line state that the frames returning to it were made on (a
    lambda's, a comprehension's, a generator expression's: the last state is the return of
    the last of them), where the history shows them one step at a time and none raised. None
    otherwise."""
    depth = 0
    for k in range(len(states) - 1, 0, -1):
        if actions[k - 1].kind not in _STEPS:
            return None
        kind = states[k].kind
        if kind is StateKind.EXCEPTION:
            return None  # a frame may have ended by the exception, not returned
        depth += {StateKind.RETURN: 1, StateKind.CALL: -1}.get(kind, 0)
        if depth < 0:
            return None
        start = states[k - 1]
        if depth == 0 and start.kind is StateKind.LINE:
            on = set(source.by_text.get(start.src or "", []))
            return k - 1 if on and on <= set(callers) and start.src == states[-1].src else None
    return None


def _after_frames(
    flow: LineFlow,
    source: SourceMap,
    states: tuple[State, ...],
    actions: tuple[Action, ...],
    callers: list[int],
) -> tuple[Effects | None, Branch | None]:
    """What the caller's line computes (:mod:`.computed`), or where its branch head leads
    (:func:`branch_lines`), once the frames it made returned (the last state is the last
    one's return): from the caller's locals on the line before its first frame was called.
    A list, set or dict comprehension alone on the line hands back what it built, which stands
    in for it where the rest of the line is computed without it."""
    start = _line_start(states, actions, callers, source)
    if start is None:
        return None, None
    before = standalone(states, start).locals or {}
    constants, builtins = flow.module_constants.literals, flow.call_sites.builtins_kept
    branch = branch_lines(flow, source, states[: start + 1], actions[:start], callers, before)
    computing = _alike(flow.computing, callers)
    if computing is None:
        return None, branch
    last = states[-1]
    after = None
    if states[start + 1].src == last.src and _returned_alone(states, start):
        try:
            after = after_comprehension(computing, literal(last.value))
        except Undecided:
            after = None
    used = after or computing
    return effects(used, Values(before, constants, builtins, used.local)), branch


def _returned_alone(states: tuple[State, ...], start: int) -> bool:
    """Whether the last state is the return of the one frame called from the line state at
    ``start`` (no other frame of the line ran before it)."""
    depth = 0
    for state in states[start + 1 :]:
        depth += {StateKind.CALL: 1, StateKind.RETURN: -1}.get(state.kind, 0)
        if depth == 0 and state is not states[-1]:
            return False
    return True


def _caller_lines(source: SourceMap, located: Located | None) -> list[int]:
    """Every line the caller of the frame ``located`` stands in may stand on: the lines
    sharing the text of the line the history places it on (none where it places none)."""
    stack = located.stack if located is not None else ()
    if len(stack) < 2 or stack[-2] is None:
        return []
    return source.by_text.get(source.lines[stack[-2] - 1], [])


def _texts(source: SourceMap, numbers: Iterable[int]) -> frozenset[str]:
    return frozenset(source.lines[n - 1] for n in numbers if 0 < n <= len(source.lines))
