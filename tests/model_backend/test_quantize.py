"""int8 weights and the engine's settings: chosen by argument or environment, bad ones refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from neural_debugger.model_backend.backend import (
    BackendError,
    DecodeOptions,
    History,
    ModelFolderError,
)
from neural_debugger.model_backend.decoding_llama import DecodingLlama
from neural_debugger.model_backend.llama import load_pretrained
from neural_debugger.model_backend.local import LocalSession, decode_threads, load_model
from neural_debugger.model_backend.quantize import quantize_int8, quantize_setting
from neural_debugger.model_backend.session import first_state
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = load_program(ROOT / "examples" / "running_total.py", "running_total([3, 1, 2])")


def test_settings_come_from_the_argument_then_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("NDB_QUANTIZE", raising=False)
    assert quantize_setting() == "none"
    monkeypatch.setenv("NDB_QUANTIZE", "INT8")
    assert quantize_setting() == "int8"
    assert quantize_setting("none") == "none"
    with pytest.raises(ValueError, match="choose one of none, int8"):
        quantize_setting("int4")
    with pytest.raises(ModelFolderError, match="unknown quantisation 'fp4'"):
        load_model(default_model_dir(), "cpu", "fp4")
    monkeypatch.setenv("NDB_THREADS", "3")
    assert decode_threads() == 3
    for bad in ("0", "two"):
        monkeypatch.setenv("NDB_THREADS", bad)
        with pytest.raises(BackendError, match="NDB_THREADS"):
            decode_threads()


@torch.no_grad()
def test_int8_weights_keep_the_models_choices() -> None:
    """On a real prompt (the code and its first state) int8 predicts the next token as float32
    does wherever float32 is sure of it."""
    loaded = load_model(default_model_dir().resolve(), "cpu", "none")
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    prompt = LocalSession(loaded, PROGRAM.context).prompt_ids(
        history, Action(kind=ActionKind.STEP_INTO), 64
    )
    ids = torch.tensor([prompt])
    exact = DecodingLlama(load_pretrained(default_model_dir())).eval()
    reference = exact(ids)
    small = quantize_int8(exact)
    assert isinstance(small.layers[0].qkv_proj, torch.ao.nn.quantized.dynamic.Linear)
    assert type(small.layers[0].down_proj) is torch.nn.Linear  # kept float32
    confident = torch.softmax(reference, -1).amax(-1) > 0.9  # where float32 is sure
    assert int(confident.sum()) > 20
    agree = (small(ids).argmax(-1) == reference.argmax(-1))[confident].float().mean()
    assert agree > 0.9


def test_an_int8_engine_decodes_the_same_first_step() -> None:
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    action = Action(kind=ActionKind.STEP_INTO)
    states = []
    for quantize in ("none", "int8"):
        loaded = load_model(default_model_dir().resolve(), "cpu", quantize)
        session = LocalSession(loaded, PROGRAM.context)
        states.append(session.predict_now(history, action, DecodeOptions()).state)
    assert states[0] == states[1]
