"""Checked steps back: the forward view of every inverse step agrees with the real tracer's
forward tree, the scorer's log-probabilities agree with a plain forward pass, and a checked
prediction keeps the candidate with the best inverse plus forward score."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from neural_debugger.model_backend.backend import BudgetExceeded, DecodeOptions, History
from neural_debugger.model_backend.forward_check import ForwardScorer, ForwardStep, forward_view
from neural_debugger.model_backend.local import LocalSession, load_model
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.encoding import encode_frame, encode_header, encode_step
from neural_debugger.protocol.tokens import ACTION_SEP
from neural_debugger.tracer.program import Program, load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.tree import StateTree

ROOT = Path(__file__).resolve().parents[2]
NESTED = """\
def g(x):
    y = x * 2
    return y


def f(a):
    s = g(a) + g(a + 1)
    for k in range(2):
        s += k
    del a
    try:
        s = s // 0
    except ZeroDivisionError:
        s -= 1
    return s
"""
INVERSE = (ActionKind.INV_STEP_INTO, ActionKind.INV_STEP_OVER, ActionKind.INV_STEP_CALL)


def _traced(tmp_path: Path, source: str, entry: str) -> tuple[Program, StateTree, StateTree]:
    """The program, and its forward and inverse trees from one real run."""
    path = tmp_path / "program.py"
    path.write_text(source)
    program = load_program(path, entry)
    trace = record(program)
    forward = StateTree.forward(program, trace)
    return program, forward, StateTree.inverse_of(program, trace, forward=forward)


@pytest.mark.parametrize(
    ("source", "entry"),
    [
        (NESTED, "f(1)"),
        ((ROOT / "examples" / "bubble_sort.py").read_text(), "bubble_sort([3, 1, 2])"),
        ((ROOT / "examples" / "running_total.py").read_text(), "running_total([3, 1, 2])"),
    ],
)
def test_every_inverse_step_seen_forwards_is_the_tracers_forward_step(
    tmp_path: Path, source: str, entry: str
) -> None:
    _, forward, inverse = _traced(tmp_path, source, entry)
    node_of = {id(node.event): node.index for node in forward.nodes if node.event is not None}
    checked = skipped = 0
    for j, node in enumerate(inverse.nodes):
        if node.kind.is_exit:
            continue
        later = inverse.state(j)  # the state stood on, whole
        for kind in INVERSE:
            action = Action(kind=kind)
            k = inverse.next(j, action)
            candidate = inverse.state(k, j, action)  # as the inverse language writes it
            view = forward_view(candidate, later, kind)
            if view is None:
                assert (
                    candidate.kind.is_exit
                    or later.kind is StateKind.INV_LINE_CALL
                    or (kind is ActionKind.INV_STEP_CALL and later.kind is not StateKind.INV_RETURN)
                ), (kind, candidate, later)
                skipped += 1
                continue
            start = node_of[id(inverse.nodes[k].event)]
            end = forward.next(start, view.action)
            assert forward.nodes[end].event is node.event, (kind, candidate, later)
            assert view.earlier == forward.state(start)
            assert view.later == forward.state(end, start, view.action)
            checked += 1
    assert checked > skipped > 0


@pytest.fixture(scope="module")
def loaded():
    return load_model(default_model_dir().resolve(), "cpu")


def _plain_logprob(model: torch.nn.Module, vocab, code: str, step: ForwardStep) -> float:
    """The same quantity from one whole forward pass with no cache."""
    prompt = vocab.encode(encode_header(code) + encode_frame(step.earlier))
    prompt += vocab.encode(encode_step(step.action))
    target = [*vocab.encode(encode_frame(step.later)), vocab.special_id[ACTION_SEP]]
    ids = torch.tensor([prompt + target])
    logprobs = torch.log_softmax(model(ids)[0].float(), -1)
    return sum(float(logprobs[len(prompt) + i - 1, t]) for i, t in enumerate(target) if i)


def test_scorer_matches_a_plain_pass_and_prefers_the_true_next_state(loaded) -> None:
    code = "def f(a):\n    s = a + 1\n    s = s * 3\n    return s"
    earlier = State(kind=StateKind.LINE, src="    s = s * 3", locals={"a": "4", "s": "5"})
    after = State(kind=StateKind.RETURN, src="    return s", value="15")
    # the scorer sees the line state before `return s`, whose locals changed from the step
    line = State(kind=StateKind.LINE, src="    return s", locals={"s": "15"}, diff=True)
    wrong = State(kind=StateKind.LINE, src="    return s", locals={"s": "16"}, diff=True)
    scorer = ForwardScorer(loaded.model, loaded.vocab, code, loaded.window)
    step_over = Action(kind=ActionKind.STEP_OVER)
    right_step = ForwardStep(earlier, step_over, line)
    right = scorer.logprob(right_step)
    assert right == pytest.approx(
        _plain_logprob(loaded.model, loaded.vocab, code, right_step), abs=1e-3
    )
    assert scorer.logprob(ForwardStep(earlier, step_over, wrong)) < right
    step_into = Action(kind=ActionKind.STEP_INTO)
    whole = State(kind=StateKind.LINE, src="    return s", locals={"a": "4", "s": "15"})
    returned = scorer.logprob(ForwardStep(whole, step_into, after))
    assert returned is not None and returned < 0
    assert scorer.calls >= 4  # the code once, then one pass per step


def test_checked_step_back_keeps_the_best_scored_candidate(tmp_path: Path, loaded) -> None:
    program, _, inverse = _traced(tmp_path, NESTED, "f(1)")
    states = [inverse.state(0)]
    path_nodes = [0]
    for _ in range(4):  # back from the return over a few lines
        k = inverse.next(path_nodes[-1], Action(kind=ActionKind.INV_STEP_INTO))
        states.append(inverse.state(k, path_nodes[-1], Action(kind=ActionKind.INV_STEP_INTO)))
        path_nodes.append(k)
    back = Action(kind=ActionKind.INV_STEP_INTO)
    history = History(program.function_context, tuple(states), (back,) * (len(states) - 1))
    session = LocalSession(loaded, program.function_context)
    greedy = session.predict_now(history, back, DecodeOptions())
    options = DecodeOptions(check=6, temperature=1.0, seed=3)
    checked = session.predict_now(history, back, options)
    assert checked.checked is not None and 1 <= checked.checked[0] <= 6
    assert checked.checked[1] == 6
    assert checked.model_calls > greedy.model_calls
    assert session.predict_now(history, back, options).state == checked.state  # seeded: repeatable

    scorer = ForwardScorer(loaded.model, loaded.vocab, program.function_context, loaded.window)
    later = inverse.state(path_nodes[-1])

    def total(prediction) -> float:
        step = forward_view(prediction.state, later, ActionKind.INV_STEP_INTO)
        assert step is not None
        score = scorer.logprob(step)
        assert score is not None
        return prediction.logprob + score

    assert total(checked) >= total(greedy) - 1e-4


def test_a_sample_past_the_budget_is_dropped_not_the_step(tmp_path: Path, loaded) -> None:
    program, _, inverse = _traced(tmp_path, NESTED, "f(1)")
    back = Action(kind=ActionKind.INV_STEP_CALL)  # from the return: the inputs
    history = History(program.function_context, (inverse.state(0),), ())
    session = LocalSession(loaded, program.function_context)
    greedy = session.predict_now(history, back, DecodeOptions())
    budget = greedy.generated + greedy.forced + 1  # room for the greedy state alone
    wild = None
    for seed in range(40):  # a sample this hot soon rambles past the budget: find one that does
        hot = DecodeOptions(temperature=8.0, seed=seed, max_new_tokens=budget)
        try:
            session.predict_now(history, back, hot)
        except BudgetExceeded:
            wild = hot
            break
    assert wild is not None
    checked = session.predict_now(history, back, replace(wild, check=3))
    assert checked.checked is not None and checked.checked[0] >= 1
    assert checked.state.kind is StateKind.INV_CALL
