"""Averaging model folders: the mean of the weights, written as a model folder that loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from neural_debugger.model_backend.llama import (
    LlamaForCausalLM,
    ModelConfig,
    load_pretrained,
    save_pretrained,
)
from neural_debugger.training.average import average_models, main

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "ndb-small"


def model_folder(folder: Path, seed: int, hidden: int = 64) -> Path:
    torch.manual_seed(seed)
    config = ModelConfig(
        vocab_size=300, hidden_size=hidden, intermediate_size=176, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
    )  # fmt: skip
    folder.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(SHIPPED / name, folder / name)
    save_pretrained(LlamaForCausalLM(config), folder, dtype=torch.float32)
    (folder / "run.json").write_text(json.dumps({"seed": seed}))
    return folder


def test_the_average_is_the_mean_of_the_weights_and_loads(tmp_path: Path) -> None:
    a, b = model_folder(tmp_path / "a", 1), model_folder(tmp_path / "b", 2)
    out = average_models(tmp_path / "mean", [a, b])
    wa, wb = load_pretrained(a).state_dict(), load_pretrained(b).state_dict()
    mean = load_pretrained(out)
    for name, tensor in mean.state_dict().items():
        torch.testing.assert_close(tensor, (wa[name] + wb[name]) / 2)
    assert mean(torch.tensor([[0, 5, 7]])).shape == (1, 3, 300)
    config = json.loads((out / "config.json").read_text())
    assert (
        config["ndb_tokenizer_sha256"]
        == json.loads((a / "config.json").read_text())["ndb_tokenizer_sha256"]
    )
    run = json.loads((out / "run.json").read_text())
    assert run["seed"] == 2 and run["averaged_from"] == [str(a), str(b)]


def test_models_of_another_shape_are_refused(tmp_path: Path) -> None:
    a, b = model_folder(tmp_path / "a", 1), model_folder(tmp_path / "b", 2, hidden=32)
    with pytest.raises(ValueError, match="another shape"):
        average_models(tmp_path / "mean", [a, b])
    assert not (tmp_path / "mean").exists()


def test_the_command_line_refuses_to_overwrite_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = model_folder(tmp_path / "a", 1), model_folder(tmp_path / "b", 2)
    with pytest.raises(SystemExit):
        main([str(a), str(a), str(b)])
    assert "one of the inputs" in capsys.readouterr().err
    assert main([str(tmp_path / "mean"), str(a), str(b)]) == 0
    assert (tmp_path / "mean" / "config.json").exists()
