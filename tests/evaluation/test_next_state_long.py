"""``ndb eval next-state --long``: predictions whose history outgrows the model's window."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neural_debugger.cli import main as ndb
from neural_debugger.evaluation.next_state import load_items, outgrows_window
from neural_debugger.model_backend.prompt import RESERVE
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import encode
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import STEP_INTO, sample
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.shards import ShardWriter

MODEL = Path(default_model_dir())
PROGRAMS = {
    "short": "def f(x):\n    y = x + 1\n    return y\n\ndef main():\n    return f(2)\n",
    "long": "def grow(n):\n    items = []\n    for i in range(n):\n        items.append(i * i)\n"
    "    return len(items)\n\ndef main():\n    return grow(40)\n",
}


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(tmp_path_factory.mktemp("long"))
    writer = ShardWriter(root / "heldout", 100)
    (root / "heldout").mkdir()
    for name, source in PROGRAMS.items():
        path = root / f"{name}.py"
        path.write_text(source)
        program = load_program(path, "main()")
        tree = StateTree.forward(program, record(program))
        text = encode(sample(tree, STEP_INTO, random.Random(0)).trajectory)
        writer.write([{"text": text, "origin": "generated", "name": name}])
    writer.close()
    return root / "heldout"


def test_only_prompts_too_long_for_the_window_are_asked(shards: Path) -> None:
    tokenizer = load_tokenizer(MODEL)
    window = json.loads((MODEL / "config.json").read_text())["max_position_embeddings"]
    items = load_items(shards, 1000, 0, 2048, beyond_window=outgrows_window(MODEL))
    assert items, "the long loop gives prompts beyond the window"
    for item in items:
        assert len(tokenizer.encode(item.prompt, add_special_tokens=False).ids) > window - RESERVE
        assert "grow" in item.prompt  # none from the short program
    whole = load_items(shards, 1000, 0, 10**9)
    assert len(whole) > len(items)  # the short program and the long one's early prefixes


def test_the_command_decodes_long_sessions_with_the_engine(
    shards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "long.json"
    args = ["--model", str(MODEL), "--data", str(shards), "--per-action", "3", "--long"]
    code = ndb(["eval", "next-state", *args, "--out", str(out)])
    assert code == 0
    results = json.loads(out.read_text())
    assert results["prompts"].startswith("beyond the window")
    assert results["decoding"] == "constrained (embedded engine)"
    assert results["weights"] in ("float16", "float32")  # what `auto` loaded here
    assert results["command"].endswith(f"--long --out {out}")
    step_into = results["results"]["step_into"]
    assert step_into["exact"]["n"] == 3 and step_into["parsed"]["rate"] > 0
    assert "step_into" in capsys.readouterr().out
