"""``ndb eval report``: plots and the README block come from the results files, nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from neural_debugger.cli import main as ndb
from neural_debugger.evaluation import cruxeval, report
from neural_debugger.evaluation.cruxeval import Item
from neural_debugger.evaluation.dap_crosscheck import overall_agreement
from neural_debugger.evaluation.next_state import BUCKETS, bucket_label

# Six items; the identity baseline passes "g" (output) and "b", "c", "g" (input).
ITEMS = [
    Item(name, f"def f(x):\n    return {body}", arg, out)
    for name, body, arg, out in (
        ("a", "x * 3", "2", "6"),
        ("b", "abs(x)", "-4", "4"),
        ("c", "x.upper()", "'ab'", "'AB'"),
        ("d", "x + [1]", "[7]", "[7, 1]"),
        ("e", "len(x)", "'abc'", "3"),
        ("g", "x", "'same'", "'same'"),
    )
]

PNG = b"\x89PNG\r\n\x1a\n"


def rate(n: int, right: int) -> dict[str, float]:
    return {"n": n, "rate": right / n}


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()

    def write(name: str, data: dict) -> None:
        (folder / f"{name}.json").write_text(json.dumps(data))

    for task, action in (("output", "step_return"), ("input", "inv_step_call")):
        out = cruxeval.run(ITEMS, task, action, None, "identity")
        write(f"cruxeval_{task}_{action}_identity", {**out, "command": f"identity {task}"})
    write(
        "next_state_constrained",
        {
            "model": "models/ndb-small",
            "decoding": "constrained (embedded engine)",
            "command": "ndb eval next-state --constrained",
            "results": {
                "step_into": {"parsed": rate(10, 10), "exact": rate(10, 7), "event": rate(10, 9),
                              "source": rate(10, 8), "locals": rate(10, 7)},
                "inv_step_call": {"parsed": rate(8, 8), "exact": rate(8, 2),
                                  "event": rate(8, 8), "source": rate(8, 5),
                                  "locals": rate(8, 2)},
            },
        },
    )  # fmt: skip
    labels = [bucket_label(b) for b in BUCKETS]
    write(
        "horizon_constrained",
        {
            "model": "models/ndb-small",
            "decoding": "constrained (embedded engine)",
            "per_bucket": 4,
            "buckets": labels,
            "command": "ndb eval horizon --constrained",
            "results": {
                "breakpoint": {
                    label: {"exact": rate(4, 4 - min(k, 4)), "source": rate(4, 3)}
                    for k, label in enumerate(labels)
                }
            },
        },
    )
    details = [{"pairs": [{"scenario": "next"}, {"scenario": "next", "kinds": ["object_repr"]},
                          {"scenario": "exit"}]}]  # fmt: skip
    write(
        "dap_crosscheck",
        {"programs": 1, "programs_desynced": [], "details": details,
         "scenarios": {"all": {"position_rate": 1.0}}},
    )  # fmt: skip
    for name in ("server_bench", "backend_bench"):
        shutil.copy(report.RESULTS / f"{name}.json", folder / f"{name}.json")
    return folder


def readme(tmp_path: Path) -> Path:
    path = tmp_path / "README.md"
    path.write_text(f"# Title\n\nbefore\n\n{report.BEGIN}\nold text\n{report.END}\n\nafter\n")
    return path


def test_the_report_writes_plots_and_the_readme_block(results: Path, tmp_path: Path) -> None:
    path, plots = readme(tmp_path), tmp_path / "plots"
    argv = ["eval", "report", "--results", str(results), "--plots", str(plots)]
    argv += ["--docs", str(tmp_path / "results.md")]
    assert ndb([*argv, "--readme", str(path)]) == 0
    for name in ("cruxeval", "accuracy_per_action", "horizon", "latency"):
        png = plots / f"{name}.png"
        assert png.read_bytes()[:8] == PNG and png.stat().st_size > 10_000
    text = path.read_text()
    assert text.startswith("# Title\n\nbefore\n\n") and text.endswith("\n\nafter\n")
    assert "old text" not in text
    block = text[text.index(report.BEGIN) : text.index(report.END)]
    # the paper's numbers beside ours, with the commands that made ours
    assert "77.9%" in block and "53.6% (17.7% exact)" in block
    assert "16.7% (16.7% exact, n=6)" in block  # identity, output: only g(x) == x
    assert "50.0% (16.7% exact, n=6)" in block  # identity, input: b, c and g
    assert "`identity output`" in block and "`ndb eval horizon --constrained`" in block
    assert "| step_into | 10 | – | 70.0% | 90.0% | 80.0% | 70.0% |" in block
    assert "| breakpoint | 100% (4) | 75% (4) |" in block
    assert "**66.7%** of 3 stops" in block
    assert "![Exact match against jump distance](evaluation/plots/horizon.png)" in block
    # regenerating gives the same README
    assert ndb([*argv, "--readme", str(path)]) == 0
    assert path.read_text() == text


def test_a_readme_without_the_markers_is_refused(results: Path, tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text("# no block here\n")
    argv = ["eval", "report", "--results", str(results), "--plots", str(tmp_path / "p")]
    argv += ["--docs", str(tmp_path / "results.md")]
    assert ndb([*argv, "--readme", str(path)]) == 2
    assert path.read_text() == "# no block here\n"


def test_missing_results_say_how_to_make_them(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    block = report.report(tmp_path / "empty", tmp_path / "plots", None)
    assert "run `make eval-model`" in block
    assert not list((tmp_path / "plots").glob("*.png"))


def test_the_docs_put_models_side_by_side_and_against_tokens(tmp_path: Path) -> None:
    """Two models' results folders (the newer one trained longer, written first), a baseline
    at the top: docs/results.md shows each headline run with a column per model in token
    order, counts with intervals and commands, and a score-against-tokens table and plot."""
    results, docs, plots = tmp_path / "results", tmp_path / "docs" / "results.md", tmp_path / "p"
    for name, tokens, passed in (("ndb-new", 9_000_000, 4), ("ndb-old", 3_000_000, 1)):
        folder = results / name
        folder.mkdir(parents=True)
        records = [{"id": str(k), "passed": k < passed} for k in range(6)]
        crux = {"task": "output", "action": "breakpoint", "backend": "local", "n": 6,
                "pass@1": passed / 6, "exact_match": 0.0, "decoding": "constrained greedy",
                "model": f"models/{name}", "command": f"crux {name}", "records": records,
                "run_command": f"ndb eval run crux --model models/{name}",
                "training_tokens": tokens}  # fmt: skip
        (folder / "cruxeval_output_breakpoint_constrained_all.json").write_text(json.dumps(crux))
    state = {"model": "models/ndb-old", "data": "data/v1/heldout-real", "command": "ns old",
             "decoding": "constrained (embedded engine)", "training_tokens": 3_000_000,
             "results": {"step_into": {"exact": rate(10, 7)},
                         "step_over": {"exact": rate(5, 5)}}}  # fmt: skip
    (results / "ndb-old" / "next_state_real.json").write_text(json.dumps(state))
    out = cruxeval.run(ITEMS, "output", "step_return", None, "identity")
    (results / "cruxeval_output_step_return_identity.json").write_text(
        json.dumps({**out, "command": "identity output"})
    )
    argv = ["eval", "report", "--results", str(results), "--plots", str(plots)]
    assert ndb([*argv, "--docs", str(docs), "--model", "ndb-new"]) == 0
    text = docs.read_text()
    assert text.startswith("# Results\n")
    crux = text[text.index("#### CruxEval-O, breakpoint") :].split("####")[1]
    assert "| | ndb-old (0.00B tokens) | ndb-new (0.01B tokens) |" in crux  # old first
    assert "| pass@1 | 1/6 (16.7%; 3.0%–56.4%) | 4/6 (66.7%; 30.0%–90.3%) |" in crux
    assert "* ndb-new: `ndb eval run crux --model models/ndb-new` (`crux ndb-new`)" in crux
    real = text[text.index("#### next state, held-out real code") :].split("####")[1]
    assert "| step_into | 7/10 (70.0%; 39.7%–89.2%) | – |" in real
    assert "| all actions | 12/15 (80.0%; 54.8%–93.0%) | – |" in real
    assert "Not measured yet: `ndb eval run next_state_packages --model DIR`." in text
    assert "| ndb-old | 3,000,000 | 16.7% | – | – | – | 80.0% | – | – |" in text
    assert "| ndb-new | 9,000,000 | 66.7% | – | – | – | – | – | – |" in text
    assert (plots / "score_vs_tokens.png").read_bytes()[:8] == PNG
    assert "![Headline scores against training tokens](../p/score_vs_tokens.png)" in text
    # the details are of the model asked for, with the baseline from the top folder
    assert "## Details: ndb-new" in text and "16.7% (16.7% exact, n=6)" in text
    assert ndb([*argv, "--docs", str(docs), "--model", "ndb-none"]) == 2


def test_one_agreement_rate_from_the_details() -> None:
    details = [{"pairs": [{"scenario": "next"}, {"scenario": "stepIn", "kinds": ["class_repr"]}]},
               {"pairs": [{"scenario": "exit"}, {"scenario": "next"}]}]  # fmt: skip
    assert overall_agreement({"details": details}) == {"stops": 4, "agreed": 3, "rate": 0.75}
    assert overall_agreement({"details": []})["rate"] is None


def test_real_code_held_out_by_function_gets_its_own_column(results: Path, tmp_path: Path) -> None:
    real = {
        "model": "models/ndb-small",
        "decoding": "constrained (embedded engine)",
        "command": "ndb eval next-state --constrained --unseen data/train",
        "results": {"step_into": {"parsed": rate(5, 5), "exact": rate(5, 2)}},
    }
    (results / "next_state_real.json").write_text(json.dumps(real))
    block = report.report(results, tmp_path / "plots", None)
    assert "exact, unseen real functions (n)" in block
    assert "| step_into | 10 | – | 70.0% | 40.0% (5) | 90.0% |" in block
    assert "| inv_step_call | 8 | – | 25.0% | – | 100.0% |" in block
    assert "`ndb eval next-state --constrained --unseen data/train`" in block


def test_steps_back_checked_forwards_fill_their_column_for_inverse_actions_only(
    results: Path, tmp_path: Path
) -> None:
    checked = {
        "model": "models/ndb-small",
        "decoding": "constrained (embedded engine), steps back checked forwards (8 candidates)",
        "command": "ndb eval next-state --constrained --check 8",
        "results": {
            "step_into": {"parsed": rate(10, 10), "exact": rate(10, 7)},  # unchanged by a check
            "inv_step_call": {"parsed": rate(8, 8), "exact": rate(8, 4)},
        },
    }
    (results / "next_state_checked.json").write_text(json.dumps(checked))
    block = report.report(results, tmp_path / "plots", None)
    assert "exact, steps back checked forwards (n)" in block
    assert "| step_into | 10 | – | 70.0% | – | 90.0% |" in block
    assert "| inv_step_call | 8 | – | 25.0% | 50.0% (8) | 100.0% |" in block
    assert "`ndb eval next-state --constrained --check 8`" in block


STEPPED = "constrained (embedded engine), breakpoints stepped (up to 64 steps into, then one jump)"
STEPPED_BOTH = (
    "constrained (embedded engine), breakpoints and step outs stepped (up to 64 steps into, "
    "then one jump)"
)


def test_targets_are_judged_per_draw_and_pooled_from_the_largest_plain_runs(
    results: Path, tmp_path: Path
) -> None:
    def run(data: str, command: str, rows: dict, **fields: str) -> dict:
        return {"model": "models/ndb-small", "data": data, "command": command,
                "decoding": "constrained (embedded engine)", "prompts": "whole",
                "origins": "all", "unseen_in": None, "results": rows, **fields}  # fmt: skip

    files = {
        "next_state_constrained": run(
            "data/v1/heldout", "small tracked",
            {"step_over": {"exact": rate(10, 9)}, "breakpoint": {"exact": rate(10, 5)}},
        ),
        # the same seed's first items and more: it replaces the small run where both measured
        "next_state_constrained_160": run(
            "data/v1/heldout", "large tracked", {"step_over": {"exact": rate(20, 17)}}
        ),
        "next_state_constrained_heldout2": run(
            "data/v1/heldout-2", "second draw",
            {"step_over": {"exact": rate(10, 10)}, "breakpoint": {"exact": rate(8, 3)}},
        ),
        # neither counts: decoded otherwise, or on other prompts
        "next_state_checked": run(
            "data/v1/heldout", "checked", {"step_over": {"exact": rate(40, 40)}},
            decoding="constrained (embedded engine), steps back checked forwards (8 candidates)",
        ),
        "next_state_long": run(
            "data/v1/heldout-2", "long", {"breakpoint": {"exact": rate(40, 0)}},
            prompts="beyond the window (oldest states dropped)",
        ),
        # breakpoints stepped as a session continues: a row of their own, other actions ignored
        "next_state_stepped": run(
            "data/v1/heldout", "stepped tracked",
            {"breakpoint": {"exact": rate(10, 7)}, "step_over": {"exact": rate(40, 0)}},
            decoding=STEPPED,
        ),
        "next_state_stepped_heldout2": run(
            "data/v1/heldout-2", "stepped second", {"breakpoint": {"exact": rate(8, 4)}},
            decoding=STEPPED,
        ),
        # a third draw: a column of its own, pooled with the others
        "next_state_constrained_heldout3": run(
            "data/v1/heldout-3", "third draw", {"step_over": {"exact": rate(10, 8)}},
        ),
        # step outs stepped too (a later run's decoding): a row of their own
        "next_state_stepped_heldout3": run(
            "data/v1/heldout-3", "stepped third",
            {"breakpoint": {"exact": rate(10, 6)}, "step_return": {"exact": rate(10, 9)}},
            decoding=STEPPED_BOTH,
        ),
    }  # fmt: skip
    for name, data in files.items():
        (results / f"{name}.json").write_text(json.dumps(data))
    block = report.report(results, tmp_path / "plots", None)
    assert "| pooled | 95% interval | target |" in block
    # step_over: 17/20, 10/10 and 8/10 pool to 35/40 = 87.5%, under 90%; Wilson 95% interval
    # of 35 in 40: 73.9% to 94.5%
    assert (
        "| step_over | 17/20 (85.0%) | 10/10 (100.0%) | 8/10 (80.0%) | **87.5%** (35/40)"
        " | 73.9%–94.5% | ≥ 90% | ✗ | ✗ |"
    ) in block
    # breakpoint: 5/10 and 3/8 pool to 8/18 = 44.4%, under 50%; the third draw has none
    assert (
        "| breakpoint | 5/10 (50.0%) | 3/8 (37.5%) | – | **44.4%** (8/18) | 24.6%–66.3%"
        " | ≥ 50% | ✗ | ✗ |"
    ) in block
    # stepped: 7/10, 4/8 and 6/10 pool to 17/28 = 60.7%, above 50% on every draw
    stepped = (
        "| breakpoint, stepped | 7/10 (70.0%) | 4/8 (50.0%) | 6/10 (60.0%) | **60.7%** (17/28)"
        " | 42.4%–76.4% | ≥ 50% | ✓ | ✓ |"
    )
    assert stepped in block and "`stepped second`" in block
    assert "| step_return, stepped | – | – | 9/10 (90.0%) | **90.0%** (9/10)" in block
    assert "| step_into |" not in block.split("training issue's targets")[1].split("From:")[0]
    assert "`large tracked`" in block and "`second draw`" in block and "`third draw`" in block
    assert "`checked`" not in block.split("training issue's targets")[1]


def test_the_wilson_interval_holds_the_rate_and_narrows_with_more_items() -> None:
    low, high = report.wilson_interval(9, 10)
    assert low < 0.9 < high <= 1.0
    wide, narrow = report.wilson_interval(90, 100), report.wilson_interval(900, 1000)
    assert wide[0] < narrow[0] < 0.9 < narrow[1] < wide[1]
    assert report.wilson_interval(0, 5)[0] == 0.0 and report.wilson_interval(5, 5)[1] == 1.0
    with pytest.raises(ValueError):
        report.wilson_interval(0, 0)


def test_targets_without_plain_runs_say_how_to_make_them() -> None:
    assert "make eval-model" in report.targets_markdown({})[0]
