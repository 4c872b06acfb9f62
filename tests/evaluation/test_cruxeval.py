"""The CruxEval harness: prompts in the language, and a scorer that re-executes."""

from __future__ import annotations

from pathlib import Path

import pytest

from neural_debugger.evaluation import cruxeval
from neural_debugger.evaluation.cruxeval import Item
from neural_debugger.paths import cruxeval_path
from neural_debugger.protocol import StateKind, parse_trajectory

ITEM = Item(
    "t0",
    "def f(xs, k):\n    if not xs:\n        return k\n    return [x * k for x in xs]",
    "[1, 2], 3",
    "[3, 6]",
)


def test_output_prompts_end_after_one_action_from_the_entry_line() -> None:
    for action, token in (
        ("step_return", "<|step_return|>"),
        ("breakpoint", "<|breakpoint|>    return f([1, 2], 3)"),
    ):
        prompt = cruxeval.output_prompt(ITEM, action)
        assert prompt.endswith(f"<|action_sep|>{token}\n\n<|frame_sep|>")
        body = parse_trajectory(
            prompt.removesuffix("\n\n<|frame_sep|>").rsplit("<|action_sep|>", 1)[0]
        )
        assert [s.kind for s in body.states] == [StateKind.CALL, StateKind.LINE]
        assert body.code.endswith("def main():\n    return f([1, 2], 3)")


def test_input_prompt_starts_at_the_last_return_with_the_output() -> None:
    prompt = cruxeval.input_prompt(ITEM)
    assert "def main" not in prompt
    assert (
        '<|inv_return_sep|>\n<|src_sep|>    return [x * k for x in xs]\n<|arg_sep|>"[3, 6]"'
        in prompt
    )
    assert prompt.endswith("<|action_sep|><|inv_step_call|>\n\n<|frame_sep|>")


def test_predictions_are_read_off_the_generated_state() -> None:
    ret = '<|return_sep|>\n<|src_sep|>    return f([1, 2], 3)\n<|arg_sep|>"[3, 6]"'
    assert cruxeval.prediction_from_state(ITEM, "output", ret) == "[3, 6]"
    call = '<|inv_call_sep|>\n<|src_sep|>def f(xs, k):\n<|arg_sep|>{"xs": "[1]", "k": "6"}'
    assert cruxeval.prediction_from_state(ITEM, "input", call) == "[1], 6"
    assert cruxeval.prediction_from_state(ITEM, "input", "garbage") is None
    partial = '<|inv_call_sep|>\n<|src_sep|>def f(xs, k):\n<|arg_sep|>{"xs": "[1]"}'
    assert cruxeval.prediction_from_state(ITEM, "input", partial) is None


def test_the_scorer_re_executes_and_accepts_any_valid_input() -> None:
    assert cruxeval.passes(ITEM, "output", "[3, 6]")
    assert not cruxeval.passes(ITEM, "output", "[3, 7]")
    assert cruxeval.passes(ITEM, "input", "[1, 2], 3")
    assert cruxeval.passes(ITEM, "input", "[3, 6], 1")  # another input with the same output
    assert not cruxeval.passes(ITEM, "input", "[1], 1")
    assert not cruxeval.passes(ITEM, "output", "[3, 6")  # a syntax error in the prediction
    assert not cruxeval.passes(ITEM, "output", None)


def test_a_runaway_prediction_is_cut_by_the_timeout() -> None:
    looping = Item("t1", "def f(n):\n    while n:\n        pass\n    return n", "0", "0")
    assert not cruxeval.passes(looping, "input", "1")


@pytest.mark.skipif(not cruxeval_path().exists(), reason="CruxEval data not beside the repo")
def test_baseline_runs_through_the_same_harness() -> None:
    items = cruxeval.load(cruxeval_path(), limit=30)
    out = cruxeval.run(items, "output", "step_return", None, "baseline")
    assert out["n"] == 30 and set(out) >= {"task", "action", "backend", "pass@1", "exact_match"}
    # the baseline is right exactly where f(x) == x
    for record, item in zip(out["records"], items, strict=True):
        assert record["passed"] == cruxeval.passes(item, "output", item.input)
    assert 0 < out["pass@1"] < 0.5
    with pytest.raises(ValueError, match="does not predict"):
        cruxeval.run(items, "output", "inv_step_call", None, "baseline")


def test_other_data_files_and_entry_names(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text(
        '{"id": "x", "code": "def g(a):\\n    return a * 2", "input": "4", '
        '"output": "8", "entry": "g"}\n'
    )
    items = cruxeval.load(data)
    assert items[0].entry == "g"
    assert cruxeval.passes(items[0], "output", "8")
    assert "return g(4)" in cruxeval.output_prompt(items[0], "step_return")
