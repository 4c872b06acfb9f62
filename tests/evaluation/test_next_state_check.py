"""``ndb eval next-state --check K --actions ...``: checked steps back, on chosen actions; and
``--samples K``: the majority of sampled states."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neural_debugger.cli import main as ndb
from neural_debugger.protocol import encode
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import PAPER, PAPER_INVERSE, sample
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.shards import ShardWriter

SOURCE = (
    "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n\n"
    "def main():\n    return total([4, 1, 2])\n"
)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(tmp_path_factory.mktemp("checked"))
    (root / "heldout").mkdir()
    path = root / "total.py"
    path.write_text(SOURCE)
    program = load_program(path, "main()")
    trace = record(program)
    forward = StateTree.forward(program, trace)
    inverse = StateTree.inverse_of(program, trace, forward=forward)
    writer = ShardWriter(root / "heldout", 100)
    for seed in range(4):
        for tree, policy in ((forward, PAPER), (inverse, PAPER_INVERSE)):
            text = encode(sample(tree, policy, random.Random(seed)).trajectory)
            writer.write([{"text": text, "origin": "generated", "name": f"total-{seed}"}])
    writer.close()
    return root / "heldout"


def test_checked_run_on_chosen_actions_records_how_it_decoded(
    shards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "checked.json"
    code = ndb(["eval", "next-state", "--data", str(shards), "--per-action", "3", "--check", "3",
                "--actions", "inv_step_into,inv_step_over", "--out", str(out)])  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    assert set(result["results"]) == {"inv_step_into", "inv_step_over"}
    assert all(r["parsed"]["rate"] == 1.0 for r in result["results"].values())  # the grammar
    assert result["decoding"].endswith("steps back checked forwards (3 candidates)")
    assert "--check 3 --actions inv_step_into,inv_step_over" in result["command"]
    assert "inv_step_into" in capsys.readouterr().out


def test_sampled_run_keeps_the_majority_and_records_how_it_decoded(
    shards: Path, tmp_path: Path
) -> None:
    out = tmp_path / "sampled.json"
    code = ndb(["eval", "next-state", "--data", str(shards), "--per-action", "3", "--samples", "3",
                "--actions", "step_into,inv_step_into", "--out", str(out)])  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    assert set(result["results"]) == {"step_into", "inv_step_into"}
    assert all(r["parsed"]["rate"] == 1.0 for r in result["results"].values())  # the grammar
    assert result["decoding"].endswith("majority of 3 samples at temperature 0.8")
    assert "--samples 3 --temperature 0.8 --actions step_into,inv_step_into" in result["command"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--check", "0"], "--check must be at least 1"),
        (["--actions", "jump"], "unknown action"),
        (["--samples", "0"], "--samples must be at least 1"),
        (["--temperature", "0.5"], "--temperature needs --samples above 1"),
        (["--samples", "4", "--temperature", "0"], "--temperature needs --samples above 1"),
    ],
)
def test_bad_check_or_action_is_a_clear_error(
    shards: Path, flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ndb(["eval", "next-state", "--data", str(shards), *flags]) == 2
    assert message in capsys.readouterr().out
