"""``ndb eval next-state --stepped N``: breakpoints and step outs reached as a debug session
reaches them, by steps into."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neural_debugger.cli import main as ndb
from neural_debugger.evaluation.next_state import _constrained, _stepped, load_items
from neural_debugger.model_backend.local import load_model
from neural_debugger.protocol import encode, parse_state
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import PAPER, sample
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.shards import ShardWriter

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "ndb-small"
SOURCE = (
    "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n\n"
    "def main():\n    n = total([4, 1, 2])\n    return n * 2\n"
)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(tmp_path_factory.mktemp("stepped"))
    (root / "heldout").mkdir()
    path = root / "total.py"
    path.write_text(SOURCE)
    program = load_program(path, "main()")
    forward = StateTree.forward(program, record(program))
    writer = ShardWriter(root / "heldout", 100)
    for seed in range(40):
        text = encode(sample(forward, PAPER, random.Random(seed)).trajectory)
        writer.write([{"text": text, "origin": "generated", "name": f"total-{seed}"}])
    writer.close()
    return root / "heldout"


def test_a_stepped_breakpoint_lands_on_its_line_with_whole_locals(shards: Path) -> None:
    items = [i for i in load_items(shards, 6, 0, 2048) if i.action == "breakpoint"]
    assert len(items) >= 3
    loaded = load_model(MODEL, "cpu")
    for item in items:
        assert item.next_action is not None
        state = _stepped(loaded, item, 64)
        assert state is not None and not state.diff  # as the jump shows it: whole locals
        assert state.kind.is_exit or state.src == item.next_action.target
        # no steps allowed: the language's one jump, as the plain run decodes it
        assert _stepped(loaded, item, 0) == parse_state(_constrained(loaded, item))


def test_a_stepped_step_out_lands_on_the_frames_return(shards: Path) -> None:
    items = [i for i in load_items(shards, 6, 0, 2048) if i.action == "step_return"]
    assert len(items) >= 3
    loaded = load_model(MODEL, "cpu")
    for item in items:
        state = _stepped(loaded, item, 64)
        assert state is not None
        # the walk stops at its own frame's return, the state the real step out shows
        assert state.kind is item.target.kind
        assert state.src == item.target.src
        assert _stepped(loaded, item, 0) == parse_state(_constrained(loaded, item))


def test_stepped_run_records_how_it_decoded(
    shards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "stepped.json"
    code = ndb(["eval", "next-state", "--data", str(shards), "--per-action", "3", "--stepped", "16",
                "--actions", "breakpoint,step_into", "--out", str(out)])  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    assert set(result["results"]) == {"breakpoint", "step_into"}
    assert all(r["parsed"]["rate"] == 1.0 for r in result["results"].values())
    assert result["decoding"] == (
        "constrained (embedded engine), breakpoints and step outs stepped (up to 16 steps "
        "into, then one jump)"
    )
    assert "--stepped 16 --actions breakpoint,step_into" in result["command"]
    assert "breakpoint" in capsys.readouterr().out


def test_a_negative_step_budget_is_a_clear_error(
    shards: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ndb(["eval", "next-state", "--data", str(shards), "--stepped", "-1"]) == 2
    assert "--stepped must be 0 (jump) or more" in capsys.readouterr().out
