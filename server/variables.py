"""What an editor inspects at a stop: scopes, variables, their parts, watch results, edits.

A stop's locals are repr texts predicted for the innermost frame. For outer frames the latest
stop seen in that frame supplies them (labelled "as last seen"), since a stop predicts only the
innermost frame. Every variable carries how sure the model was of it: a diff-encoded stop
predicts only the values that changed, so an unchanged value keeps the confidence of the stop
that last predicted it, and a value the user set shows "set by you".

``variablesReference`` numbers (handles) are valid while the debugger stays at one stop; they
are resolved lazily against the current stop, so an edit shows at once under the same handle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Literal

from neural_debugger.model_backend.backend import BackendError
from neural_debugger.model_backend.confidence import without_sureness
from neural_debugger.model_backend.expressions import (
    EvaluationError,
    Evaluator,
    NotALiteral,
    rebuild,
)
from neural_debugger.model_backend.session import DebugSession, Stop
from neural_debugger.protocol import ActionKind, StateKind

from .messages import Scope, Variable, VariablesArguments
from .values import (
    children,
    is_container,
    part_at,
    rebuild_or_none,
    replace_part,
    shown_value,
    sureness,
    type_name,
)

PAGE = 100  # containers longer than this are paged by the editor


class InspectError(Exception):
    """A request about values that cannot be answered; the message is for the user."""


@dataclass(frozen=True)
class ScopeRef:
    frame: int  # 0 is the innermost frame
    kind: Literal["locals", "value"]


@dataclass(frozen=True)
class PartRef:
    """A container inside a variable: found again from the variable's text on each request."""

    frame: int
    root: str
    path: tuple[Any, ...]


@dataclass(frozen=True, eq=False)
class ResultRef:
    """A container from an evaluation (a snapshot: it is not a variable that can change)."""

    value: Any
    expression: str
    sure: str


Ref = ScopeRef | PartRef | ResultRef


class Handles:
    """``variablesReference`` numbers; never reused, so a stale one cannot mean something new."""

    def __init__(self) -> None:
        self._refs: dict[int, Ref] = {}
        self._numbers: dict[Ref, int] = {}
        self._next = 1

    def add(self, ref: Ref) -> int:
        known = self._numbers.get(ref) if not isinstance(ref, ResultRef) else None
        if known is not None:
            return known
        number, self._next = self._next, self._next + 1
        self._refs[number] = ref
        if not isinstance(ref, ResultRef):
            self._numbers[ref] = number
        return number

    def get(self, number: int) -> Ref:
        ref = self._refs.get(number)
        if ref is None:
            raise InspectError(f"variablesReference {number} is not valid at this stop")
        return ref

    def clear(self) -> None:
        self._refs.clear()
        self._numbers.clear()


@dataclass(frozen=True)
class FrameLocals:
    """A frame's variables as seen at one stop of the session's history."""

    variables: dict[str, str]
    index: int  # the stop they were seen at
    current: bool  # seen at the current stop


class Inspector:
    """Values of one session's current stop, as scopes and variables."""

    def __init__(self, session: DebugSession) -> None:
        self.session = session
        self.handles = Handles()
        self._module = session.program.module_name
        self._classes = program_classes(session.program.source)
        self._edits: dict[int, tuple[Stop, frozenset[str]]] = {}  # id(stop) -> names set

    def moved(self) -> None:
        """The session is at another stop: the old handles mean nothing there."""
        self.handles.clear()

    # ---- frames and confidence ---------------------------------------------------------------

    def frame_locals(self, frame: int) -> FrameLocals | None:
        """The variables of a frame (0 = innermost) from the latest stop that showed them."""
        stops = self.session.stops
        current = self.session.current
        if not 0 <= frame < len(current.frames):
            raise InspectError(f"there is no frame {frame + 1} at this stop")
        if frame == 0 and current is not stops[-1] and current.locals is not None:
            return FrameLocals(current.locals, len(stops) - 1, True)  # a view (stepping)
        name = current.frames[-1 - frame].name
        depth = current.depth - frame
        for index in range(len(stops) - 1, -1, -1):
            stop = stops[index]
            if stop.depth < depth:
                return None  # the frame was entered after this stop: never seen
            if stop.locals is not None and stop.depth == depth and stop.frames:
                if stop.frames[-1].name != name:
                    return None
                return FrameLocals(stop.locals, index, index == len(stops) - 1)
        return None

    def confidence(self, index: int, name: str) -> tuple[float | None, bool]:
        """How sure the model was of ``name`` at stop ``index``, and whether the user set it.

        Walks back to the stop that last predicted the name (a diff leaves unchanged names
        out); an edited stop holds full locals but only its edits are new.
        """
        stops = self.session.stops
        for i in range(index, -1, -1):
            stop = stops[i]
            edits = self._edits.get(id(stop))
            if edits is not None and name in edits[1]:
                return 1.0, True
            if name in stop.confidence.values:
                return stop.confidence.values[name], False
            if stop.state.locals is not None and not stop.state.diff and edits is None:
                return None, False  # a full state that does not rate this name
        return None, False

    # ---- scopes and variables ----------------------------------------------------------------

    def valued_stop(self) -> Stop | None:
        """The stop whose return value (or exception) the top frame shows: the current one, or
        just after stepping out, the callee's return that led here (as debugpy shows it)."""
        stops = self.session.stops
        current = self.session.current
        if current.state.value is not None:
            return current
        if current.returns:  # shown as debugpy shows them: (return) entries among the Locals
            return None
        stepped = current.action is not None and current.action.kind is ActionKind.STEP_INTO
        if self.session.inverse and stepped and stops[-2].state.kind is StateKind.RETURN:
            return stops[-2]
        return None

    def scopes(self, frame: int) -> list[Scope]:
        found = self.frame_locals(frame)
        scopes = []
        valued = self.valued_stop()
        if frame == 0 and valued is not None:
            kind = valued.state.kind
            returned = kind in (StateKind.RETURN, StateKind.INV_RETURN)
            scopes.append(
                Scope(
                    name="Return value" if returned else "Exception",
                    variables_reference=self.handles.add(ScopeRef(0, "value")),
                    presentation_hint="returnValue" if returned else None,
                    named_variables=1,
                )
            )
        if found is not None:
            seen = self.session.stops[found.index]
            title = "Locals" if found.current else f"Locals (as last seen, line {seen.line})"
            scopes.append(
                Scope(
                    name=title,
                    variables_reference=self.handles.add(ScopeRef(frame, "locals")),
                    presentation_hint="locals",
                    named_variables=len(found.variables),
                )
            )
        return scopes

    def variables(self, args: VariablesArguments) -> list[Variable]:
        ref = self.handles.get(args.variables_reference)
        shown = self._scope_variables(ref) if isinstance(ref, ScopeRef) else self._parts(ref)
        if args.filter == "indexed":
            shown = [v for v in shown if v.name.isdigit()]
        elif args.filter == "named":
            shown = [v for v in shown if not v.name.isdigit()]
        end = args.start + args.count if args.count else None
        return shown[args.start : end]

    def _scope_variables(self, ref: ScopeRef) -> list[Variable]:
        current = self.session.current
        if ref.kind == "value":
            valued = self.valued_stop()
            if valued is None or valued.state.value is None:
                return []
            raised = valued.state.kind in (StateKind.EXCEPTION, StateKind.INV_EXCEPTION)
            label = "(exception)" if raised else "(return)"
            if valued is not current and valued.frames:  # stepped out: name the callee
                label = f"(return) {valued.frames[-1].name}"
            p = valued.confidence.value
            return [self._variable(label, valued.state.value, p, False, None, None)]
        found = self.frame_locals(ref.frame)
        if found is None:
            return []
        result = []
        if ref.frame == 0:  # debugpy's return values, sorted before the plain names
            for name, text in current.returns:
                result.append(
                    self._variable(name, text, current.confidence.value, False, None, None)
                )
        for name, text in found.variables.items():
            p, edited = self.confidence(found.index, name)
            part = PartRef(ref.frame, name, ())
            result.append(self._variable(name, text, p, edited, part, name))
        return result

    def _variable(
        self,
        name: str,
        text: str,
        p: float | None,
        edited: bool,
        part: PartRef | None,
        evaluate_name: str | None,
    ) -> Variable:
        ok, value = rebuild_or_none(text)
        number = 0
        if ok and is_container(value):
            ref: Ref = part if part is not None else ResultRef(value, text, sureness(p, edited))
            number = self.handles.add(ref)
        return Variable(
            name=name,
            value=shown_value(text, self._module, self._classes),
            type=f"{type_name(text)} · {sureness(p, edited)}",
            variables_reference=number,
            evaluate_name=evaluate_name,
            indexed_variables=_paged(value) if number else None,
        )

    def _container(self, ref: PartRef | ResultRef) -> tuple[Any, str, str | None]:
        """A container reference's value, how sure it is, and its expression (if any)."""
        if isinstance(ref, ResultRef):
            return ref.value, ref.sure, None
        found = self.frame_locals(ref.frame)
        if found is None or ref.root not in found.variables:
            raise InspectError(f"{ref.root} is not a variable at this stop")
        try:
            value = part_at(rebuild(found.variables[ref.root]), ref.path)
        except NotALiteral as err:
            raise InspectError(str(err)) from None
        p, edited = self.confidence(found.index, ref.root)
        expression = ref.root + "".join(f"[{key!r}]" for key in ref.path)
        return value, sureness(p, edited), expression

    def _parts(self, ref: PartRef | ResultRef) -> list[Variable]:
        value, sure, expression = self._container(ref)
        result = []
        for shown, key, part in children(value):
            child: Ref | None = None
            address = f"{expression}[{key!r}]" if expression and key is not None else None
            if is_container(part):
                if isinstance(ref, PartRef) and key is not None:
                    child = PartRef(ref.frame, ref.root, (*ref.path, key))
                else:
                    child = ResultRef(part, repr(part), sure)
            result.append(
                Variable(
                    name=shown,
                    value=repr(part),
                    type=f"{type(part).__name__} · {sure}",
                    variables_reference=self.handles.add(child) if child else 0,
                    evaluate_name=address,
                    indexed_variables=_paged(part) if child else None,
                )
            )
        return result

    # ---- edits and evaluation ----------------------------------------------------------------

    def set_variable(self, number: int, name: str, value: str) -> Variable:
        """Edit a variable (or a part of one) of the current stop: a counterfactual."""
        ref = self.handles.get(number)
        text = without_sureness(value)
        if not text or "\n" in text:
            raise InspectError("give the new value as one line of Python, e.g. [1, 2]")
        if (
            isinstance(ref, ResultRef)
            or ref.frame != 0
            or (isinstance(ref, ScopeRef) and ref.kind == "value")
        ):
            raise InspectError("only the variables of the current stop's frame can be set")
        found = self.frame_locals(0)
        if found is None or not found.current:
            raise InspectError("this stop shows no variables to set (step to a line first)")
        if isinstance(ref, ScopeRef):
            root, new_text = name, text
        else:
            root = ref.root
            new_text = self._edited_part(ref, found.variables.get(root), name, text)
        before = self.session.current
        try:
            after = self.session.set_value(root, new_text)
        except BackendError as err:
            raise InspectError(str(err)) from None
        except ValueError as err:  # a text the debugger language cannot carry
            raise InspectError(f"{text!r} cannot be set: {err}") from None
        earlier = self._edits.pop(id(before), (before, frozenset()))[1]
        self._edits[id(after)] = (after, earlier | {root})
        if isinstance(ref, ScopeRef):
            return self._variable(name, text, 1.0, True, PartRef(0, name, ()), name)
        return self._variable(name, repr(rebuild(text)), 1.0, True, None, None)

    def set_expression(self, expression: str, value: str) -> Variable:
        """``name = value`` or ``name[k]...[k] = value`` (literal keys) at the current stop."""
        try:
            target = ast.parse(expression.strip(), mode="eval").body
        except SyntaxError:
            raise InspectError(f"{expression!r} is not an expression") from None
        path: list[Any] = []
        while isinstance(target, ast.Subscript):
            try:
                path.insert(0, ast.literal_eval(target.slice))
            except ValueError:
                raise InspectError("only literal keys can be set, e.g. items[0]") from None
            target = target.value
        if not isinstance(target, ast.Name):
            raise InspectError("only a variable or a part of one (items[0]) can be set")
        scope = self.handles.add(ScopeRef(0, "locals"))
        if not path:
            return self.set_variable(scope, target.id, value)
        found = self.frame_locals(0)
        root_text = found.variables.get(target.id) if found else None
        if root_text is None:
            raise InspectError(f"{target.id} is not a variable at this stop")
        try:
            part = rebuild(without_sureness(value))
            new = repr(replace_part(rebuild(root_text), tuple(path), part))
        except (NotALiteral, KeyError, IndexError, TypeError) as err:
            raise InspectError(f"{expression} cannot be set: {err}") from None
        self.set_variable(scope, target.id, new)
        return self._variable(expression, value, 1.0, True, None, None)

    def _edited_part(self, ref: PartRef, root_text: str | None, name: str, text: str) -> str:
        """The new text of a variable one of whose parts is set to ``text``."""
        if root_text is None:
            raise InspectError(f"{ref.root} is not a variable at this stop")
        try:
            root = rebuild(root_text)
            container = part_at(root, ref.path)
            key = next((k for shown, k, _ in children(container) if shown == name), None)
            if key is None:
                raise InspectError(f"{name} cannot be set: it has no key in its container")
            return repr(replace_part(root, (*ref.path, key), rebuild(text)))
        except NotALiteral as err:
            raise InspectError(f"a part can only be set to a literal value: {err}") from None

    def evaluate(self, expression: str, frame: int) -> Variable:
        """A watch, hover or REPL expression over the predicted values of a frame."""
        if self.session.current.exited:
            raise InspectError("the program has exited: there are no values to evaluate")
        found = self.frame_locals(frame)
        evaluator = Evaluator(found.variables if found else {})
        try:
            value = evaluator.evaluate(expression)
        except EvaluationError as err:
            raise InspectError(str(err)) from None
        try:
            text = repr(value)
        except ValueError as err:  # e.g. an int past Python's digit limit for str()
            raise InspectError(f"the result is too large to show: {err}") from None
        marks = [self.confidence(found.index, n) for n in evaluator.used] if found else []
        if not marks:  # literals only: nothing predicted
            plain = self._variable("result", text, 1.0, False, None, None)
            return plain.model_copy(update={"type": type(value).__name__})
        known = [p for p, _ in marks if p is not None]
        edited = all(e for _, e in marks)
        return self._variable("result", text, min(known) if known else None, edited, None, None)


def program_classes(source: str) -> frozenset[str]:
    """The names of the classes a program defines (how their class objects are written)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef))


def _paged(value: Any) -> int | None:
    """How many indexed parts the editor should page through (long sequences only)."""
    if isinstance(value, list | tuple | set | frozenset) and len(value) > PAGE:
        return len(value)
    return None
