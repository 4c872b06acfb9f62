"""The oracle backend: the real tracer behind the backend interface.

It runs the program once (sandboxed, see :mod:`neural_debugger.tracer.run`), builds the state tree
(forward, or the inverse tree of the entry call) and answers each action by walking the tree. It
is ground truth for ``--compare`` and the server's cross-checks; because it executes the user's
code it is only ever chosen explicitly.

A history the real run cannot have produced (an edited value, a step the model invented) gets a
clear :class:`BackendError`: the oracle shows reality, not counterfactuals.
"""

from __future__ import annotations

import anyio

from neural_debugger.protocol import Action, State
from neural_debugger.protocol.encoding import encode_state
from neural_debugger.tracer.events import TraceLimits
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.run import trace
from neural_debugger.tracer.tree import StateTree

from .backend import BackendError, Confidence, DecodeOptions, History, Prediction


class OracleEngine:
    name = "oracle"

    def __init__(self, limits: TraceLimits | None = None) -> None:
        self.limits = limits or TraceLimits()

    async def open(self, program: Program, *, inverse: bool = False) -> OracleSession:
        return await anyio.to_thread.run_sync(OracleSession, program, inverse, self.limits)

    async def aclose(self) -> None:
        return None


class OracleSession:
    """A real run's state tree, walked along each history."""

    def __init__(self, program: Program, inverse: bool, limits: TraceLimits) -> None:
        self.run = trace(program, limits)
        forward = StateTree.forward(program, self.run)
        self.tree = StateTree.inverse_of(program, self.run, forward=forward) if inverse else forward
        self._path: list[tuple[Action, int, State]] = []  # the last history, checked

    def first_state(self) -> State:
        return self.tree.state(0)

    def node_of(self, history: History) -> int:
        """The tree node ``history`` ends at, checking every state against the real run.

        The last history's actions, nodes and states are kept: a state already checked (the
        same object) is not checked again, so a walk of many single steps stays linear.
        """
        if history.states[0] != self.first_state():
            raise BackendError("the oracle starts from the real run's first state only")
        node = 0
        for i, action in enumerate(history.actions):
            state = history.states[i + 1]
            if i < len(self._path) and self._path[i][0] == action:
                target = self._path[i][1]
                if self._path[i][2] is state:
                    node = target
                    continue
            else:
                del self._path[i:]
                target = self.tree.next(node, action)
            if self.tree.state(target, node, action) != state:
                raise BackendError(
                    f"state {i + 1} of this session differs from the real run (an edited value "
                    "or a predicted step): the oracle cannot follow it"
                )
            del self._path[i:]
            self._path.append((action, target, state))
            node = target
        del self._path[len(history.actions) :]
        return node

    async def predict(self, history: History, action: Action, options: DecodeOptions) -> Prediction:
        if action.kind.is_inverse != self.tree.inverse:
            raise BackendError(f"{action.kind} does not apply to this session's direction")
        node = self.node_of(history)
        if self.tree.nodes[node].kind.is_exit:
            raise BackendError("the program has exited; no action can follow")
        target = self.tree.next(node, action)
        state = self.tree.state(target, node, action)
        return Prediction(
            state=state, confidence=Confidence.certain(state), text=encode_state(state)
        )

    async def aclose(self) -> None:
        return None
