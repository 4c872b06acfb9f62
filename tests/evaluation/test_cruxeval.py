"""The CruxEval harness: prompts in the language, a scorer that re-executes, baselines that show
the scorer accepts right answers and rejects wrong ones, pass@k, and reproducible runs."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from neural_debugger.cli import main as ndb
from neural_debugger.evaluation import cruxeval
from neural_debugger.evaluation.cruxeval import Item
from neural_debugger.paths import cruxeval_path, default_model_dir
from neural_debugger.protocol import StateKind, parse_trajectory

# A handful of items the baselines are checked on: several returns (the input prompt guesses
# the last one), strings, mutation of an argument, a dict, an entry not named f.
ITEMS = [
    Item("a", "def f(xs, k):\n    if not xs:\n        return k\n    return [x * k for x in xs]",
         "[1, 2], 3", "[3, 6]"),
    Item("b", "def f(n):\n    if n < 0:\n        return -n\n    return n", "-4", "4"),
    Item("c", "def f(s):\n    return s.upper() + '!'", "'ab'", "'AB!'"),
    Item("d", "def f(xs):\n    xs.append(len(xs))\n    return xs", "[7]", "[7, 1]"),
    Item("e", "def f(d, key):\n    d[key] = d.get(key, 0) + 1\n    return d",
         "{'a': 1}, 'b'", "{'a': 1, 'b': 1}"),
    Item("g", "def g(x):\n    return x", "'same'", "'same'", entry="g"),
]  # fmt: skip
TASKS = (("output", "step_return"), ("output", "breakpoint"), ("input", "inv_step_call"))

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
    out = cruxeval.run(items, "output", "step_return", None, "identity")
    assert out["n"] == 30 and set(out) >= {"task", "action", "backend", "pass@1", "exact_match"}
    # the baseline is right exactly where f(x) == x
    for record, item in zip(out["records"], items, strict=True):
        assert record["passed"] == cruxeval.passes(item, "output", item.input)
    assert 0 < out["pass@1"] < 0.5
    with pytest.raises(ValueError, match="does not predict"):
        cruxeval.run(items, "output", "inv_step_call", None, "identity")


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


@pytest.mark.parametrize(("task", "action"), TASKS)
def test_the_oracle_passes_every_item_through_the_same_prompts(task: str, action: str) -> None:
    """The real tracer, asked the very prompts the model gets, must pass everything: the
    prompts show real states and the scorer accepts right answers, whatever their spelling."""
    with cruxeval.engine_predictor("oracle") as predict:
        out = cruxeval.run(ITEMS, task, action, predict, "oracle")
    assert out["pass@1"] == 1.0, [r for r in out["records"] if not r["passed"]]
    assert out["unusable"] == 0


def test_the_identity_baseline_passes_only_where_f_of_x_is_x() -> None:
    out = cruxeval.run(ITEMS, "output", "step_return", None, "identity")
    assert {r["id"]: r["passed"] for r in out["records"]} == {
        "a": False, "b": False, "c": False, "d": False, "e": False, "g": True,
    }  # fmt: skip
    assert out["pass@1"] == pytest.approx(1 / 6)
    inverse = cruxeval.run(ITEMS, "input", "inv_step_call", None, "identity")
    # f(4) == 4 for "b": an input other than the reference one that is still right
    assert [r["passed"] for r in inverse["records"]] == [False, True, False, False, False, True]
    assert [r["exact"] for r in inverse["records"]] == [False] * 5 + [True]


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    # against its definition: the share of k-subsets of the n samples with a passing one
    for n, c in itertools.product(range(1, 7), range(7)):
        if c > n:
            continue
        outcomes = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(outcomes, k))
            expected = sum(any(s) for s in subsets) / len(subsets)
            assert cruxeval.pass_at_k(n, c, k) == pytest.approx(expected)
    with pytest.raises(ValueError):
        cruxeval.pass_at_k(3, 1, 4)


def test_sampled_runs_report_pass_at_k_per_item() -> None:
    """Draw 0 of each item is wrong and draw 1 right: pass@1 is 1/3, pass@3 is 1."""

    def predict(item: Item, prompt: str, draw: int) -> str:
        value = item.output if draw == 1 else "'wrong'"
        src = cruxeval.output_prompt(item, "step_return").split("def main():\n")[1].split("\n")[0]
        return f"<|return_sep|>\n<|src_sep|>{src}\n<|arg_sep|>{json.dumps(value)}"

    out = cruxeval.run(ITEMS[:3], "output", "step_return", predict, "fake", samples=3)
    assert out["samples"] == 3
    assert out["pass@1"] == pytest.approx(1 / 3)
    assert out["pass@3"] == pytest.approx(1.0)
    assert out["exact_match"] == pytest.approx(1 / 3)
    assert out["first_sample_pass"] == 0.0
    for record, item in zip(out["records"], ITEMS[:3], strict=True):
        assert record["passes"] == [False, True, False]
        assert record["predictions"][1] == item.output and not record["passed"]


def test_the_cli_writes_a_results_file_with_its_command(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(vars(item)) + "\n" for item in ITEMS))
    out = tmp_path / "r.json"
    argv = ["eval", "cruxeval", "--task", "input", "--action", "inv_step_call"]
    argv += ["--backend", "identity", "--data", str(data), "--out", str(out)]
    assert ndb(argv) == 0
    result = json.loads(out.read_text())
    assert set(result) >= {"task", "action", "backend", "n", "pass@1", "exact_match", "records"}
    assert result["n"] == 6 and result["pass@1"] == pytest.approx(2 / 6)
    assert result["command"].startswith("ndb eval cruxeval --task input")
    assert set(result["records"][0]) >= {"id", "prediction", "passed"}
    # refusals: the wrong action for the task, sampling the raw model, vllm without a server
    assert ndb([*argv[:3], "output", "--action", "inv_step_call", "--data", str(data)]) == 2
    assert ndb([*argv[:6], "--data", str(data), "--samples", "2"]) == 2
    assert ndb([*argv[:6], "--backend", "vllm", "--data", str(data)]) == 2
    # the forward check needs the embedded model's scores
    assert ndb([*argv[:6], "--backend", "identity", "--data", str(data), "--check", "4"]) == 2


MODEL = default_model_dir()
needs_model = pytest.mark.skipif(
    not any(MODEL.glob("model*.safetensors")), reason="no shipped model"
)


@needs_model
def test_two_greedy_runs_of_the_model_give_identical_records() -> None:
    """Greedy decoding under the grammar, as ``--constrained`` and debug sessions use it (the
    raw model's argmax decoding is deterministic by construction, and slow to test: it rambles
    to its token limit)."""
    runs = []
    for _ in range(2):
        with cruxeval.engine_predictor("local", MODEL) as predict:
            for task, action in TASKS:
                runs.append(cruxeval.run(ITEMS[:2], task, action, predict, "local")["records"])
    assert runs[:3] == runs[3:]
    assert any(r["prediction"] is not None for r in runs[0])  # something parsed, to compare


@needs_model
def test_two_sampled_runs_with_one_seed_give_identical_records() -> None:
    def sampled() -> dict:
        with cruxeval.engine_predictor("local", MODEL, temperature=0.8, seed=3) as predict:
            return cruxeval.run(ITEMS[:2], "output", "step_return", predict, "local", samples=3)

    first, second = sampled(), sampled()
    assert first["records"] == second["records"]
    assert first["pass@3"] >= first["pass@1"]


@needs_model
def test_a_checked_input_run_is_repeatable_and_says_how_it_decoded(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(vars(item)) + "\n" for item in ITEMS[:3]))
    argv = ["eval", "cruxeval", "--task", "input", "--action", "inv_step_call", "--constrained"]
    argv += ["--data", str(data), "--check", "4"]
    results = []
    for name in ("a.json", "b.json"):
        assert ndb([*argv, "--out", str(tmp_path / name)]) == 0
        results.append(json.loads((tmp_path / name).read_text()))
    assert results[0]["records"] == results[1]["records"]  # candidates are drawn seeded
    assert results[0]["decoding"] == "constrained greedy, checked forwards (4 candidates)"
    assert results[0]["command"].endswith(f"--check 4 --out {tmp_path / 'a.json'}")


def test_a_stepped_step_out_walks_a_session_to_mains_return() -> None:
    """``--stepped``: the oracle's steps, taken by a debug session from the prompt's entry
    line, reach ``main``'s return with the real output on every item."""
    with cruxeval.engine_predictor("oracle", stepped=200) as predict:
        out = cruxeval.run(ITEMS, "output", "step_return", predict, "oracle")
    assert out["pass@1"] == 1.0, [r for r in out["records"] if not r["passed"]]


@needs_model
def test_a_stepped_model_run_says_how_it_decoded(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(vars(item)) + "\n" for item in ITEMS[:3]))
    argv = ["eval", "cruxeval", "--task", "output", "--action", "step_return", "--constrained"]
    argv += ["--data", str(data), "--stepped", "32", "--out", str(tmp_path / "s.json")]
    assert ndb(argv) == 0
    result = json.loads((tmp_path / "s.json").read_text())
    assert result["decoding"] == (
        "constrained greedy, stepped out (up to 32 steps into, then one jump)"
    )
    assert "--stepped 32" in result["command"]
    assert result["unusable"] == 0  # every walk ended on main's return, which parses
    # a step out only: refused for the breakpoint action, the raw model and a negative budget
    for change in (["--action", "breakpoint"], ["--stepped", "-1"]):
        assert ndb([*argv[:-2], *change]) == 2
    raw = [a for a in argv[:-2] if a != "--constrained"]
    assert ndb(raw) == 2
