"""Forward and inverse state trees, and where each debugger action leads on them.

**Forward tree.** Traced events in order form a pre-order walk of a tree: the states of one
function call are the children of the caller's node that made the call (usually a line; an
exception node when ``__exit__`` runs after it), in order. Tree depth is call-stack depth. A
node's subtree is the node and every following node deeper than it; an exit node closes the tree.

======================  ===================================================================
``step_into``           the next node (enters a callee; at the end of a level goes up)
``step_over``           the first node after this node's subtree: the next node at the same
                        level, or, at the end of the level, the next node further up
``step_return``         the return node of the current frame. From a return node (the frame
                        is already returning): the caller's next node after the line that
                        made the call, as bdb and pdb do (ours: the paper does not say)
``breakpoint SRC``      the first later node, at any depth and of any kind, whose source line
                        is SRC, as the paper defines it; the exit if none. A real debugger stops
                        on line events only: the two differ when the first such node is a call
                        (a breakpoint on a ``def`` line) or the return or exception of the line
                        the program stands on
``continue``            the exit node
======================  ===================================================================

**Inverse tree** for one frame activation (the entry function's call, or a script's module
frame): that activation's nodes in reverse order; each node that made calls is preceded by an
``inv_line_call`` duplicate whose children are the callees' nodes, reversed the same way, so one
can step back into a call (``inv_step_into``) or over it (``inv_step_over``). ``inv_step_call``
goes to the current level's call node (the function's inputs); from a call node, to the caller's.
The exit node ``inv_exit_entry`` closes the tree.

States shown for nodes (:meth:`StateTree.state`) follow the paper's diff encoding: a line state
shown right after a state of the same frame activation lists only the variables whose value
differs (``None`` marks a variable no longer bound); call states, states after a return or
exception state, and breakpoint targets show the full locals.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from neural_debugger.protocol.language import Action, State
from neural_debugger.protocol.tokens import INVERSE_OF, ActionKind, StateKind

from .events import ExitKind, Trace, TraceEvent
from .program import Program

_FORWARD_KINDS = {
    "call": StateKind.CALL,
    "line": StateKind.LINE,
    "return": StateKind.RETURN,
    "exception": StateKind.EXCEPTION,
}
_EXIT_KINDS = {
    ExitKind.NORMAL: StateKind.EXIT_NORMAL,
    ExitKind.ERROR: StateKind.EXIT_ERROR,
    ExitKind.NEVER: StateKind.EXIT_NEVER,
}
_LINE_KINDS = frozenset({StateKind.LINE, StateKind.INV_LINE, StateKind.INV_LINE_CALL})


@dataclass(frozen=True, slots=True)
class Node:
    """One state of the tree: a traced event (``event``) or the closing exit (``event`` None)."""

    index: int
    kind: StateKind
    event: TraceEvent | None
    depth: int  # 0 for the top level; -1 for the exit
    parent: int  # index of the parent node, -1 at the top level
    end: int  # index one past this node's subtree


@dataclass
class StateTree:
    """Nodes in pre-order (the last is the exit) and the code context the language shows."""

    nodes: list[Node]
    code: str
    inverse: bool
    _nodes_by_src: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for node in self.nodes:
            if node.event is not None and not self.inverse:
                self._nodes_by_src.setdefault(node.event.src, []).append(node.index)

    @property
    def exit_index(self) -> int:
        return len(self.nodes) - 1

    def __len__(self) -> int:
        return len(self.nodes)

    # ---- construction -------------------------------------------------------------------

    @classmethod
    def forward(cls, program: Program, trace: Trace) -> StateTree:
        """The forward tree of a whole run."""
        items = [(_FORWARD_KINDS[ev.kind], ev, ev.depth) for ev in trace.events]
        items.append((_EXIT_KINDS[trace.exit], None, -1))
        return cls(nodes=_link(items), code=program.context, inverse=False)

    @classmethod
    def inverse_of(
        cls,
        program: Program,
        trace: Trace,
        call_index: int | None = None,
        forward: StateTree | None = None,
    ) -> StateTree:
        """The inverse tree of one activation, given by the forward index of its call node.

        By default: the entry function's activation (the last call the wrapper made), or the
        module frame of a script. The code context is the program alone, without the wrapper.
        ``forward`` is the run's forward tree, when the caller has built it already.
        """
        forward = forward or cls.forward(program, trace)
        if call_index is None:
            call_index = forward.entry_call_index(program)
        if forward.nodes[call_index].kind is not StateKind.CALL:
            raise ValueError(f"node {call_index} is not a call node")
        items: list[tuple[StateKind, TraceEvent | None, int]] = []
        base = forward.nodes[call_index].depth
        # Iterative reversal: a stack of levels, each walked from its last node to its first.
        stack: list[list[int]] = [forward.activation_nodes(call_index)]
        while stack:
            level = stack[-1]
            if not level:
                stack.pop()
                continue
            j = level.pop()
            if j < 0:  # the marker left below: the line itself, before its calls were made
                original = forward.nodes[-j - 1]
                items.append((INVERSE_OF[original.kind], original.event, original.depth - base))
                continue
            node = forward.nodes[j]
            children = forward.children(j)
            if children:
                items.append((StateKind.INV_LINE_CALL, node.event, node.depth - base))
                level.append(-j - 1)
                stack.append(children)
            else:
                items.append((INVERSE_OF[node.kind], node.event, node.depth - base))
        items.append((StateKind.INV_EXIT_ENTRY, None, -1))
        return cls(nodes=_link(items), code=program.function_context, inverse=True)

    # ---- structure ----------------------------------------------------------------------

    def children(self, i: int) -> list[int]:
        """Direct children of node ``i``, in order."""
        result = []
        k = i + 1
        end = self.nodes[i].end
        while k < end:
            result.append(k)
            k = self.nodes[k].end
        return result

    def siblings_after(self, i: int):
        """Nodes after ``i`` at its level, up to the end of the parent's subtree."""
        depth = self.nodes[i].depth
        k = self.nodes[i].end
        while k < self.exit_index and self.nodes[k].depth == depth:
            yield k
            k = self.nodes[k].end

    def activation_nodes(self, call_index: int) -> list[int]:
        """The nodes of one frame activation at its own level: its call up to its return."""
        result = [call_index]
        for k in self.siblings_after(call_index):
            result.append(k)
            if self.nodes[k].kind is StateKind.RETURN:
                break
        return result

    def entry_call_index(self, program: Program) -> int:
        """The call node of the entry function (entry mode) or of the module frame (script)."""
        if program.entry is None or not self.nodes or self.nodes[0].kind is not StateKind.CALL:
            return 0
        calls = [
            k
            for line in self.children_of_level(0)
            for k in self.children(line)
            if self.nodes[k].kind is StateKind.CALL
        ]
        if not calls:
            raise ValueError("the entry expression made no call into the program's code")
        return calls[-1]

    def children_of_level(self, i: int) -> list[int]:
        return [i, *self.siblings_after(i)]

    # ---- actions ------------------------------------------------------------------------

    def next(self, i: int, action: Action) -> int:
        """The node that ``action`` leads to from node ``i``."""
        if self.nodes[i].kind.is_exit:
            raise ValueError("no action leads anywhere from an exit state")
        kind = action.kind
        if kind.is_inverse != self.inverse:
            direction = "an inverse" if self.inverse else "a forward"
            raise ValueError(f"{kind} is not an action of {direction} tree")
        if kind in (ActionKind.STEP_INTO, ActionKind.INV_STEP_INTO):
            return i + 1
        if kind in (ActionKind.STEP_OVER, ActionKind.INV_STEP_OVER):
            return self.nodes[i].end
        if kind is ActionKind.STEP_RETURN:
            if self.nodes[i].kind is StateKind.RETURN:
                parent = self.nodes[i].parent
                return self.nodes[parent].end if parent >= 0 else self.exit_index
            return self._frame_boundary(i, StateKind.RETURN)
        if kind is ActionKind.INV_STEP_CALL:
            return self._frame_boundary(i, StateKind.INV_CALL)
        if kind is ActionKind.BREAKPOINT:
            assert action.target is not None
            hits = self._nodes_by_src.get(action.target, [])
            k = bisect.bisect_right(hits, i)
            return hits[k] if k < len(hits) else self.exit_index
        if kind is ActionKind.CONTINUE:
            return self.exit_index
        raise AssertionError(kind)

    def _frame_boundary(self, i: int, boundary: StateKind) -> int:
        """The next ``boundary`` node (return / inverse call) at ``i``'s level; from a boundary
        node itself, the parent level's."""
        if self.nodes[i].kind is boundary:
            i = self.nodes[i].parent
            if i < 0:
                return self.exit_index
        for k in self.siblings_after(i):
            if self.nodes[k].kind is boundary:
                return k
        return self.exit_index

    # ---- states -------------------------------------------------------------------------

    def state(self, i: int, previous: int | None = None, action: Action | None = None) -> State:
        """The state shown for node ``i`` when reached from ``previous`` by ``action``."""
        node = self.nodes[i]
        if node.event is None:
            return State(kind=node.kind)
        event = node.event
        if node.kind.shows_value:
            return State(kind=node.kind, src=event.src, value=event.value or "None")
        full = event.locals
        if (
            node.kind in _LINE_KINDS
            and previous is not None
            and (action is None or action.kind is not ActionKind.BREAKPOINT)
        ):
            before = self.nodes[previous]
            if (
                before.event is not None
                and before.kind.shows_locals
                and before.event.activation == event.activation
            ):
                shown_before = before.event.locals
                diff: dict[str, str | None] = {
                    k: v for k, v in full.items() if shown_before.get(k) != v
                }
                for k in shown_before:
                    if k not in full:
                        diff[k] = None
                return State(kind=node.kind, src=event.src, locals=diff, diff=True)
        return State(kind=node.kind, src=event.src, locals=dict(full))


def _link(items: list[tuple[StateKind, TraceEvent | None, int]]) -> list[Node]:
    """Nodes with parent and subtree end computed from the pre-order depths."""
    n = len(items)
    parents = [-1] * n
    ends = [n] * n
    last_at_depth: list[int] = []  # last_at_depth[d]: the latest node seen at depth d
    open_nodes: list[int] = []  # nodes whose subtree is still open, depths increasing
    for idx, (_, _, depth) in enumerate(items):
        while open_nodes and items[open_nodes[-1]][2] >= depth:
            ends[open_nodes.pop()] = idx
        if depth >= 0:
            del last_at_depth[depth:]
            last_at_depth.extend([-1] * (depth - len(last_at_depth)))  # a skipped level
            parents[idx] = last_at_depth[depth - 1] if depth > 0 else -1
            last_at_depth.append(idx)
        open_nodes.append(idx)
    return [
        Node(index=i, kind=kind, event=event, depth=depth, parent=parents[i], end=ends[i])
        for i, (kind, event, depth) in enumerate(items)
    ]
