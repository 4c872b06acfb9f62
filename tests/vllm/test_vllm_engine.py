"""The vLLM engine against a real vLLM server: the same stops as the embedded engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neural_debugger.model_backend.backend import BudgetExceeded, DecodeOptions, ModelFolderError
from neural_debugger.model_backend.engines import make_engine
from neural_debugger.model_backend.llama import LlamaForCausalLM, ModelConfig, save_pretrained
from neural_debugger.model_backend.session import DebugSession, inverse_first_state
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import load_program
from neural_debugger.training.tokenizer import save_tokenizer, train_tokenizer

ROOT = Path(__file__).resolve().parents[2]
CASES = [
    ("examples/bubble_sort.py", "bubble_sort([3, 1, 2])"),
    ("examples/running_total.py", "running_total([4, 5])"),
]
SCRIPT = [ActionKind.STEP_INTO, ActionKind.STEP_INTO, ActionKind.STEP_OVER] * 4


@pytest.mark.parametrize(("path", "entry"), CASES)
async def test_embedded_vllm_and_oracle_sessions_give_parsed_stops(
    vllm_url: str, path: str, entry: str
) -> None:
    program = load_program(ROOT / path, entry)
    sessions = {
        name: await DebugSession.open(program, make_engine(name, vllm_urls=[vllm_url]))
        for name in ("local", "vllm", "oracle")
    }
    compared = 0
    for kind in SCRIPT:
        if any(s.finished for s in sessions.values()):
            break
        stops = {name: await s.step(Action(kind=kind)) for name, s in sessions.items()}
        local, vllm = stops["local"], stops["vllm"]
        assert local.state == vllm.state  # greedy: the same state, token for token
        assert vllm.confidence.event == pytest.approx(local.confidence.event, rel=1e-2)
        assert vllm.prediction is not None and vllm.prediction.forced == local.prediction.forced
        assert stops["oracle"].confidence.overall == 1.0
        compared += 1
    assert compared >= 4


async def test_inverse_and_sampled_sessions_on_vllm(vllm_url: str) -> None:
    program = load_program(ROOT / "examples/bubble_sort.py", "bubble_sort([3, 1, 2])")
    first = inverse_first_state(program, "[1, 2, 3]")
    short = DecodeOptions(max_new_tokens=64)
    sessions = [
        await DebugSession.open(
            program, make_engine(n, vllm_urls=[vllm_url]), inverse=True, first=first, options=short
        )
        for n in ("local", "vllm")
    ]
    for kind in (ActionKind.INV_STEP_INTO, ActionKind.INV_STEP_OVER, ActionKind.INV_STEP_CALL):
        outcomes = []
        for session in sessions:
            try:
                outcomes.append((await session.step(Action(kind=kind))).state)
            except BudgetExceeded as err:  # the same runaway text on both, then
                outcomes.append(err.text)
        assert outcomes[0] == outcomes[1]
        if isinstance(outcomes[0], str) or sessions[0].finished:
            break
    session = await DebugSession.open(program, make_engine("vllm", vllm_urls=[vllm_url]))
    options = DecodeOptions(temperature=1.0, samples=3, seed=11)
    one = await session.step(Action(kind=ActionKind.STEP_INTO), options)
    session.step_back()
    two = await session.step(Action(kind=ActionKind.STEP_INTO), options)
    assert one.state == two.state and one.prediction.votes == two.prediction.votes
    assert one.prediction.votes[1] == 3


async def test_a_server_with_another_tokenizer_is_refused(vllm_url: str, tmp_path: Path) -> None:
    tokenizer = train_tokenizer(["def f(x):\n    return x\n"] * 50, 300)
    save_tokenizer(tokenizer, tmp_path, 1024)
    config = ModelConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
    )
    save_pretrained(LlamaForCausalLM(config), tmp_path)
    program = load_program(ROOT / "examples/bubble_sort.py", "bubble_sort([3, 1, 2])")
    session = await DebugSession.open(program, make_engine("vllm", tmp_path, [vllm_url]))
    with pytest.raises(ModelFolderError, match="tokenizer differs"):
        await session.step(Action(kind=ActionKind.STEP_INTO))


def test_ndb_debug_on_vllm(vllm_url: str) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "neural_debugger",
            "debug",
            str(ROOT / "examples/bubble_sort.py"),
            "--entry",
            "bubble_sort([3, 1, 2])",
            "--backend",
            "vllm",
            "--vllm-url",
            vllm_url,
            "--json",
            "--script",
            "step_into,step_into,step_over,step_back,step_over",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    stops = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(stops) == 6 and all(s["event"] for s in stops)
