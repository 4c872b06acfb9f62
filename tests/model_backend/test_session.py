"""Debug sessions: the oracle replays a real run; the model's source lines are real lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch

from neural_debugger.model_backend.generate import greedy_state
from neural_debugger.model_backend.session import ModelSession, OracleSession, PredictionError
from neural_debugger.model_backend.terminal import parse_script
from neural_debugger.protocol import Action, ActionKind, StateKind, encode_prompt
from neural_debugger.tracer.program import load_program
from neural_debugger.training.model import LlamaForCausalLM, ModelConfig, save_pretrained
from neural_debugger.training.tokenizer import save_tokenizer, train_tokenizer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"


def test_oracle_session_locates_stops_and_rebuilds_full_locals() -> None:
    session = OracleSession(load_program(EXAMPLE, "bubble_sort([3, 1, 2])"))
    first = session.start()
    assert (first.file, first.line, first.state.kind) == ("<entry>", 1, StateKind.CALL)
    actions = parse_script("step_into,step_into,step_over,step_over", session.program.lines)
    stops = [session.step(a) for a in actions]
    assert [Path(s.file).name for s in stops[1:]] == ["bubble_sort.py"] * 3
    assert [s.line for s in stops] == [2, 4, 5, 6]
    assert stops[-1].state.diff  # the language shows a diff ...
    assert stops[-1].locals == {"items": "[3, 1, 2]", "result": "[3, 1, 2]"}  # ... rebuilt
    bp = session.step(Action(kind=ActionKind.BREAKPOINT, target="    return result"))
    assert bp.line == 12 and bp.locals["swaps"] == "2"
    assert session.step(Action(kind=ActionKind.CONTINUE)).state.kind is StateKind.EXIT_NORMAL
    assert session.finished


def _random_model(folder: Path) -> None:
    texts = [EXAMPLE.read_text(), '<|line_sep|>\n<|arg_sep|>{"a": "1"}<|src_sep|>    x = 1\n']
    tokenizer = train_tokenizer(texts * 20, 400)
    save_tokenizer(tokenizer, folder, 512)
    torch.manual_seed(0)
    config = ModelConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
    )
    save_pretrained(LlamaForCausalLM(config), folder)


def test_the_source_constraint_only_writes_real_lines(tmp_path: Path) -> None:
    _random_model(tmp_path)
    program = load_program(EXAMPLE, "bubble_sort([3, 1, 2])")
    session = ModelSession(program, model_dir=tmp_path, max_new_tokens=120)
    session.start()
    lines = session.program.context.split("\n")
    prompt = encode_prompt(
        session.program.context, session.states, [Action(kind=ActionKind.STEP_INTO)]
    )
    # force a source line to start, then let the untrained model write it under the constraint
    for start in ("<|line_sep|>\n<|arg_sep|>{}<|src_sep|>", "<|return_sep|>\n<|src_sep|>"):
        text = greedy_state(session.model, session.tokenizer, prompt + start, 60, lines)
        assert "\n" in text, text
        assert text.split("\n")[0] in lines
    # an untrained model's state rarely parses: the session says so instead of crashing
    try:
        session.step(Action(kind=ActionKind.STEP_INTO))
    except PredictionError as err:
        assert "does not parse" in str(err)


def test_ndb_debug_oracle_json_stops() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "neural_debugger",
            "debug",
            str(EXAMPLE),
            "--entry",
            "bubble_sort([3, 1, 2])",
            "--backend",
            "oracle",
            "--json",
            "--script",
            "step_into,step_into,breakpoint:12,step_into,continue",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    stops = [json.loads(line) for line in out.stdout.splitlines()]
    assert [s["event"] for s in stops] == ["call", "line", "call", "line", "return", "exit_normal"]
    assert stops[4]["value"] == "[1, 2, 3]"
    bad = subprocess.run(
        [sys.executable, "-m", "neural_debugger", "debug", str(EXAMPLE), "--script", "jump"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "unknown action 'jump'" in bad.stderr
