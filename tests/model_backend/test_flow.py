"""The code's line flow: which lines can follow which in one frame, checked against real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from neural_debugger.model_backend.backend import DecodeOptions, History
from neural_debugger.model_backend.flow import LineFlow, next_line_texts
from neural_debugger.model_backend.grammar import FORWARD_KINDS, SourceLines, StateWriter
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.model_backend.vocab import Vocab
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program, load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import TRACE_LIMITS
from neural_debugger.training.programs import generate_programs, package_programs
from neural_debugger.training.tokenizer import load_tokenizer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = load_program(ROOT / "examples" / "running_total.py", "running_total([3, 1, 2])")
STEP_OVER = Action(kind=ActionKind.STEP_OVER)


def test_the_flow_of_a_loop() -> None:
    flow = LineFlow(EXAMPLE.context)  # 4: def, 5: total = 0, 6: out = [], 7: for, 10: return
    assert flow.first_lines(4) == {5}
    assert flow.following(5) == {6}
    assert flow.following(7) == {8, 10}  # the body, or past the loop
    assert flow.following(9) == {7}  # back to the header
    assert flow.following(10) is None  # a return: no line of this frame follows


def test_code_that_does_not_compile_has_no_flow() -> None:
    flow = LineFlow("def f(:\n    return 1\n")
    assert flow.following(1) is None and flow.first_lines(1) is None


def test_every_step_of_real_runs_is_one_the_flow_allows() -> None:
    """Trace generated and package programs; every line a frame shows next (after a line or
    after its call event) must be in the flow's list. The lists are also narrow."""
    programs = generate_programs(11, 40) + package_programs(11, 15)[0]
    checked = single = 0
    for index, candidate in enumerate(programs):
        program = Program(path=f"p{index}.py", source=candidate.source, entry=candidate.entry)
        flow = LineFlow(program.context)
        last: dict[int, tuple[str, int]] = {}
        for event in record(program, TRACE_LIMITS).events:
            line = program.context_line(event.file, event.line)
            before = last.get(event.activation)
            last[event.activation] = (event.kind, line)
            if event.kind != "line" or before is None or before[0] not in ("line", "call"):
                continue
            allowed = (flow.following if before[0] == "line" else flow.first_lines)(before[1])
            assert allowed is not None and line in allowed, (candidate.origin, before, line)
            checked += 1
            single += len(allowed) == 1
    assert checked > 1000
    assert single > checked / 3


def _states() -> tuple[State, ...]:
    return (
        State(kind=StateKind.CALL, src="def running_total(xs):", locals={"xs": "[3, 1, 2]"}),
        State(kind=StateKind.LINE, src="    total = 0", locals={"xs": "[3, 1, 2]"}),
    )


def test_next_line_texts_follow_the_history() -> None:
    source = SourceMap(EXAMPLE.context)
    flow = LineFlow(EXAMPLE.context)
    states = _states()
    assert next_line_texts(flow, source, states, (STEP_OVER,), STEP_OVER) == {"    out = []"}
    assert next_line_texts(flow, source, states[:1], (), STEP_OVER) == {"    total = 0"}
    step_return = Action(kind=ActionKind.STEP_RETURN)
    assert next_line_texts(flow, source, states, (STEP_OVER,), step_return) is None


def test_the_writer_forces_the_only_line_that_can_follow() -> None:
    vocab = Vocab(load_tokenizer(Path(default_model_dir())))
    source = SourceLines(EXAMPLE.context.split("\n"), vocab)
    writer = StateWriter(vocab, source, FORWARD_KINDS, {"    out = []"})
    writer.advance(vocab.special_id[StateKind.LINE.token])
    while writer.part != "object":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    for byte in b'{"..": ".."}':
        writer.advance(vocab.id_of_bytes[bytes([byte])])
    writer.take_forced(writer.forced())  # type: ignore[arg-type]  # <|src_sep|>
    forced = writer.forced()
    assert forced is not None and vocab.text(forced.ids) == "    out = []\n"


@pytest.mark.parametrize("steps", [1, 2])
def test_the_engine_shows_the_line_the_flow_allows(steps: int) -> None:
    engine = LocalEngine()
    session = LocalSession(engine.loaded, EXAMPLE.context)
    states = _states()[:steps]
    history = History(EXAMPLE.context, states, (STEP_OVER,) * (steps - 1))
    predicted = session.predict_now(history, STEP_OVER, DecodeOptions())
    assert predicted.state.kind is StateKind.LINE
    assert predicted.state.src == ("    total = 0" if steps == 1 else "    out = []")
