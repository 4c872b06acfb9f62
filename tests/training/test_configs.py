"""The model sizes of the sweep and the warmup-stable-decay schedule GPU stages use."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from neural_debugger.model_backend.llama import LlamaForCausalLM, ModelConfig, save_pretrained
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.training.train import CONFIGS, config_by_name, learning_rate

SHIPPED = Path(__file__).parents[2] / "models" / "ndb-small"
SWEEP = {"gpu-17m": 17.1e6, "gpu-21m": 20.7e6, "gpu-25m": 24.6e6}
# What comes back from a lent machine: files of at most 16 MiB, at most 8 of them in all
# (training/device_run.sh collects the shards, their index, config.json and run.json: 4 files
# besides the shards, the logs bundled into one).
MAX_WEIGHT_BYTES = 55_000_000
MAX_SHARDS = 4


def model_of(name: str) -> LlamaForCausalLM:
    config = CONFIGS[name]
    return LlamaForCausalLM(
        ModelConfig(
            vocab_size=config.vocab_size,
            hidden_size=config.hidden_size,
            intermediate_size=config.intermediate_size,
            num_hidden_layers=config.num_hidden_layers,
            num_attention_heads=config.num_attention_heads,
            num_key_value_heads=config.num_attention_heads,
            max_position_embeddings=config.block_size,
        )
    )


def test_the_shipped_shape_still_counts_12_2m() -> None:
    assert model_of("gpu-small").num_parameters() == pytest.approx(12.19e6, rel=1e-3)


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_sweep_models_are_wider_deeper_and_fit_the_carry(name: str, tmp_path: Path) -> None:
    config, shipped = CONFIGS[name], CONFIGS["gpu-small"]
    assert config.hidden_size > shipped.hidden_size
    assert config.num_hidden_layers > shipped.num_hidden_layers
    assert config.hidden_size // config.num_attention_heads == 64
    model = model_of(name)
    parameters = model.num_parameters()
    assert parameters == pytest.approx(SWEEP[name], rel=0.01)
    assert parameters <= 25_000_000
    save_pretrained(model, tmp_path)
    shards = sorted(tmp_path.glob("model*.safetensors"))
    assert sum(f.stat().st_size for f in shards) <= MAX_WEIGHT_BYTES
    assert len(shards) <= MAX_SHARDS
    assert all(f.stat().st_size <= 16 * 2**20 for f in shards)
    # the shipped tokenizer's vocabulary fits the config's (a new model may take it)
    assert load_tokenizer(SHIPPED).get_vocab_size() <= config.vocab_size
    assert config.schedule == "wsd"


def test_wsd_warms_up_holds_the_peak_then_decays_to_zero() -> None:
    config = config_by_name("gpu-21m", max_steps=1000, warmup_steps=100, decay_fraction=0.2)
    rates = [learning_rate(step, config) for step in range(1000)]
    assert rates[0] == pytest.approx(config.lr / 100)
    assert rates[99] == rates[100] == rates[799] == config.lr  # stable
    assert rates[800] == config.lr and rates[900] == pytest.approx(config.lr / 2)
    assert rates[999] == pytest.approx(config.lr / 200)
    assert all(a >= b for a, b in itertools.pairwise(rates[100:]))
    # a time box decays by the clock when the clock is further along than the steps
    assert learning_rate(200, config, time_progress=0.9) == pytest.approx(config.lr / 2)
    assert learning_rate(200, config, time_progress=1.0) == pytest.approx(0.0, abs=1e-12)
    # decay 0: the peak to the end, for a stage only a later one continues
    flat = config_by_name("gpu-21m", max_steps=1000, warmup_steps=100, decay_fraction=0.0)
    assert learning_rate(999, flat, time_progress=1.0) == config.lr


def test_cosine_stays_for_the_cpu_configs_and_bad_settings_are_refused() -> None:
    config = config_by_name("small")
    assert config.schedule == "cosine"
    mid = (config.warmup_steps + config.max_steps) // 2
    assert learning_rate(mid, config) == pytest.approx(config.lr / 2, rel=1e-2)
    with pytest.raises(ValueError, match="unknown schedule 'linear'"):
        config_by_name("tiny", schedule="linear")
    with pytest.raises(ValueError, match="unknown tokenizer kind 'words'"):
        config_by_name("tiny", tokenizer="words")
    with pytest.raises(ValueError, match="decay fraction"):
        config_by_name("tiny", decay_fraction=1.5)
