"""Stored weights and the engine's settings: float16 by default, int8 tokens quantised one by
one, float32 on request; chosen by argument or environment, bad ones refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from neural_debugger.model_backend.backend import (
    BackendError,
    DecodeOptions,
    History,
    ModelFolderError,
)
from neural_debugger.model_backend.decoding_llama import DecodingLlama
from neural_debugger.model_backend.llama import load_pretrained
from neural_debugger.model_backend.local import LocalSession, decode_threads, load_model
from neural_debugger.model_backend.quantize import (
    Fp16Linear,
    Int8Linear,
    kernels_available,
    quantize_setting,
    quantize_weights,
    resolve_setting,
)
from neural_debugger.model_backend.session import first_state
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = load_program(ROOT / "examples" / "running_total.py", "running_total([3, 1, 2])")
needs_kernels = pytest.mark.skipif(not kernels_available(), reason="no x86 fbgemm kernels")


def test_settings_come_from_the_argument_then_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("NDB_QUANTIZE", raising=False)
    assert quantize_setting() == "auto"
    monkeypatch.setenv("NDB_QUANTIZE", "INT8")
    assert quantize_setting() == "int8"
    assert quantize_setting("none") == "none"
    with pytest.raises(ValueError, match="choose one of auto, none, fp16, int8"):
        quantize_setting("int4")
    with pytest.raises(ModelFolderError, match="unknown quantisation 'fp4'"):
        load_model(default_model_dir(), "cpu", "fp4")
    assert resolve_setting("auto", "cuda") == "none"  # the CPU kernels are for the CPU
    assert resolve_setting("none", "cpu") == "none"
    with pytest.raises(ValueError, match="int8 weights are for the CPU"):
        resolve_setting("int8", "cuda")
    monkeypatch.setenv("NDB_THREADS", "3")
    assert decode_threads() == 3
    for bad in ("0", "two"):
        monkeypatch.setenv("NDB_THREADS", bad)
        with pytest.raises(BackendError, match="NDB_THREADS"):
            decode_threads()


@needs_kernels
@pytest.mark.parametrize(
    ("setting", "weights", "qkv", "down"),
    [
        (None, "fp16", Fp16Linear, Fp16Linear),  # the default
        ("auto", "fp16", Fp16Linear, Fp16Linear),
        ("fp16", "fp16", Fp16Linear, Fp16Linear),
        ("int8", "int8", Int8Linear, Fp16Linear),
        ("none", "none", nn.Linear, nn.Linear),
    ],
)
def test_each_setting_loads_its_layers(monkeypatch, setting, weights, qkv, down) -> None:
    monkeypatch.delenv("NDB_QUANTIZE", raising=False)
    if setting is not None:
        monkeypatch.setenv("NDB_QUANTIZE", setting)
    loaded = load_model(default_model_dir().resolve(), "cpu")
    assert loaded.weights == weights
    layer = loaded.model.layers[0]
    assert type(layer.qkv_proj) is qkv and type(layer.down_proj) is down
    assert type(loaded.model.lm_head) is qkv
    assert loaded.model.embed_tokens.weight.dtype == torch.float32  # lookups read float32


@needs_kernels
@torch.no_grad()
def test_int8_layers_quantise_each_token_alone() -> None:
    """A token's output is the same bit for bit whatever other tokens share the call, and close
    to float32's; an all-zero token stays zero."""
    torch.manual_seed(0)
    linear = nn.Linear(96, 160, bias=False)
    layer = Int8Linear(linear)
    rows = torch.randn(1, 9, 96) * torch.logspace(-3, 3, 9).view(1, 9, 1)  # very unlike scales
    rows[0, 4] = 0
    together = layer(rows)
    for i in range(rows.shape[1]):
        assert torch.equal(together[0, i], layer(rows[:, i : i + 1])[0, 0])
        assert torch.equal(together[0, i], layer(rows[0, [i, 8 - i]])[0])
    exact = linear(rows)
    error = (together - exact).abs().amax(-1) / exact.abs().amax(-1).clamp_min(1e-30)
    assert float(error[0, [0, 1, 2, 3, 5, 6, 7, 8]].max()) < 0.05
    assert not together[0, 4].any()
    with pytest.raises(ValueError, match="without a bias"):
        Int8Linear(nn.Linear(4, 4))


@needs_kernels
@torch.no_grad()
def test_stored_weights_keep_the_models_choices() -> None:
    """On a real prompt (the code and its first state): float16 weights give float32's logits
    up to rounding; int8 predicts the next token as float32 does wherever float32 is sure."""
    loaded = load_model(default_model_dir().resolve(), "cpu", "none")
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    prompt = LocalSession(loaded, PROGRAM.context).prompt_ids(
        history, Action(kind=ActionKind.STEP_INTO), 64
    )
    ids = torch.tensor([prompt])
    reference = DecodingLlama(load_pretrained(default_model_dir())).eval()(ids)
    half = quantize_weights(DecodingLlama(load_pretrained(default_model_dir())), "fp16")(ids)
    assert float((half - reference).abs().max()) < 1e-2
    assert torch.equal(half.argmax(-1), reference.argmax(-1))
    small = quantize_weights(DecodingLlama(load_pretrained(default_model_dir())), "int8")(ids)
    confident = torch.softmax(reference, -1).amax(-1) > 0.9  # where float32 is sure
    assert int(confident.sum()) > 20
    agree = (small.argmax(-1) == reference.argmax(-1))[confident].float().mean()
    assert agree > 0.9


@needs_kernels
def test_every_setting_decodes_the_same_first_step() -> None:
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    action = Action(kind=ActionKind.STEP_INTO)
    states = []
    for quantize in ("none", "fp16", "int8"):
        loaded = load_model(default_model_dir().resolve(), "cpu", quantize)
        session = LocalSession(loaded, PROGRAM.context)
        states.append(session.predict_now(history, action, DecodeOptions()).state)
    assert states[0] == states[1] == states[2]


def test_without_the_x86_kernels_auto_is_float32(monkeypatch) -> None:
    """On a torch build without fbgemm (an ARM laptop) the default still loads, in float32, and
    asking for float16 or int8 there says why it cannot."""
    from neural_debugger.model_backend import quantize

    monkeypatch.setattr(quantize, "kernels_available", lambda: False)
    assert resolve_setting("auto", "cpu") == "none"
    for setting in ("fp16", "int8"):
        with pytest.raises(ValueError, match=f"no x86 {setting} kernels; use NDB_QUANTIZE=none"):
            resolve_setting(setting, "cpu")
