"""The tokenizer ablation harness: two tiny models, one per kind, measured and reported."""

from __future__ import annotations

import json
from pathlib import Path

from neural_debugger.evaluation.tokenizer_ablation import main
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.paths import cruxeval_path
from neural_debugger.training.data import DataSpec, generate_data
from neural_debugger.training.tokenizer import tokenizer_kind


def test_both_kinds_train_on_the_same_tokens_and_are_measured(tmp_path: Path, capsys) -> None:
    crux = cruxeval_path()
    crux_path = str(crux) if crux.exists() else None
    generate_data(
        DataSpec(programs=30, seed=21, max_states=8), tmp_path / "d" / "train", crux_path, 1
    )
    generate_data(
        DataSpec(programs=8, seed=22, max_states=8), tmp_path / "d" / "heldout", crux_path, 1
    )
    out = tmp_path / "out"
    argv = ["--data", str(tmp_path / "d"), "--config", "tiny", "--steps", "3"]
    assert main([*argv, "--per-action", "1", "--out", str(out)]) == 0
    report = json.loads((out / "ablation.json").read_text())
    bpe, value = report["models"]["bpe"], report["models"]["value"]
    assert bpe["tokens_seen"] == value["tokens_seen"] == 3 * 4 * 512
    assert tokenizer_kind(load_tokenizer(out / "bpe")) == "bpe"
    assert tokenizer_kind(load_tokenizer(out / "value")) == "value"
    heldout = str(tmp_path / "d" / "heldout")
    assert set(bpe["heldout"][heldout]["results"]) == set(value["heldout"][heldout]["results"])
    assert value["heldout"][heldout]["tokens_per_trajectory"] > 0
    assert "| action | n | bpe | value |" in capsys.readouterr().out
    assert main([*argv, "--heldout", str(tmp_path / "none")]) == 2
