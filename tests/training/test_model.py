"""The model is a real Llama: HF transformers loads our folder and computes the same logits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from neural_debugger.model_backend.llama import (
    LlamaForCausalLM,
    ModelConfig,
    load_pretrained,
    save_pretrained,
)


def small_model(tie: bool = True) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = ModelConfig(
        vocab_size=300,
        hidden_size=64,
        intermediate_size=176,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=tie,
    )
    return LlamaForCausalLM(config).eval()


@pytest.mark.parametrize("tie", [True, False])
def test_transformers_loads_the_folder_and_agrees(tmp_path: Path, tie: bool) -> None:
    transformers = pytest.importorskip("transformers")
    model = small_model(tie)
    save_pretrained(model, tmp_path, dtype=torch.float32)
    hf = transformers.AutoModelForCausalLM.from_pretrained(tmp_path, dtype=torch.float32).eval()
    ids = torch.randint(0, 300, (2, 37))
    with torch.no_grad():
        ours = model(ids)
        theirs = hf(ids).logits
    assert torch.allclose(ours, theirs, atol=1e-4), (ours - theirs).abs().max()


def test_kv_cache_matches_full_recompute_and_rolls_back() -> None:
    model = small_model()
    ids = torch.randint(0, 300, (1, 40))
    with torch.no_grad():
        full = model(ids)
        cache = model.new_cache(64)
        first = model(ids[:, :25], cache)
        rest = model(ids[:, 25:33], cache)  # several new tokens after a prefix
        one = model(ids[:, 33:34], cache)
        assert torch.allclose(torch.cat([first, rest, one], 1), full[:, :34], atol=1e-5)
        cache.truncate(25)  # drop what followed the prefix, then continue differently
        again = model(ids[:, 25:40], cache)
        assert torch.allclose(again, full[:, 25:40], atol=1e-5)
    with pytest.raises(ValueError, match="cache holds"):
        model(torch.zeros(1, 30, dtype=torch.long), cache)


def test_shards_are_bf16_and_at_most_the_limit(tmp_path: Path) -> None:
    model = small_model()
    written = save_pretrained(model, tmp_path, max_shard_bytes=40_000)
    assert len(written) > 1
    assert all(p.stat().st_size <= 40_000 + 2_000 for p in written)  # header overhead
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    assert set(index["weight_map"].values()) == {p.name for p in written}
    loaded = load_pretrained(tmp_path)
    ids = torch.randint(0, 300, (1, 10))
    with torch.no_grad():
        assert torch.allclose(loaded(ids), model.to(torch.bfloat16).float()(ids), atol=1e-3)
    assert json.loads((tmp_path / "config.json").read_text())["torch_dtype"] == "bfloat16"


def test_broken_model_folders_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no config\.json"):
        load_pretrained(tmp_path)
    save_pretrained(small_model(), tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(ValueError, match="not a readable safetensors"):
        load_pretrained(tmp_path)
    other = tmp_path / "other"
    save_pretrained(small_model(), other)
    config = json.loads((other / "config.json").read_text())
    config["hidden_size"] = 128
    (other / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"do not fit config\.json|do not match"):
        load_pretrained(other)
