"""``ndb eval run``: the named runs of evaluation/runs.toml, checked, run and skipped."""

from __future__ import annotations

import json
import shlex
import tarfile
from pathlib import Path

import pytest

from neural_debugger.cli import build_parser
from neural_debugger.cli import main as ndb
from neural_debugger.evaluation import runs
from neural_debugger.evaluation.cruxeval import Item
from neural_debugger.paths import REPOSITORY, default_model_dir

MODEL = default_model_dir()
needs_model = pytest.mark.skipif(
    not any(MODEL.glob("model*.safetensors")), reason="no shipped model"
)
HELDOUT = REPOSITORY / "evaluation" / "heldout" / "v1.tar.xz"
# Items in CruxEval's shape (not CruxEval's items): a quick, model-independent stand-in.
ITEMS = [
    Item("a", "def f(x):\n    return x * 3", "2", "6"),
    Item("b", "def f(x):\n    return x.upper()", "'ab'", "'AB'"),
    Item("c", "def f(x):\n    return len(x)", "'abc'", "3"),
]


def items_file(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(vars(item)) + "\n" for item in ITEMS))
    return path


def test_every_run_builds_a_command_line_the_real_parser_accepts() -> None:
    config = runs.load()
    assert config.runs and config.models == (MODEL,)
    for run in config.runs.values():
        model = MODEL if run.measures_a_model else None
        argv = runs.argv(run, model, config.data_root)
        runs.check(argv)  # raises on an unknown option or a bad value
        args = build_parser().parse_args(argv)
        out = (Path.cwd() / args.out).resolve()
        expected = runs.RESULTS / (MODEL.name if run.measures_a_model else "") / run.out
        assert out == expected.resolve() and out.is_relative_to(runs.RESULTS)
        if run.task == "next-state":
            assert Path(args.data).name == run.data and args.per_action == run.items
            assert args.actions == (",".join(run.actions) or None)
        if run.task == "cruxeval":
            assert (
                args.task == run.predict
                and args.action == run.actions[0]
                and args.backend == run.backend
            )
            assert args.limit == run.items
        for key, value in run.flags.items():
            stored = getattr(args, key)
            assert str(stored) == str(value).replace("{data_root}", runs.shown(config.data_root))


def test_the_runs_file_holds_the_headline_set_on_every_item() -> None:
    config = runs.load()
    crux = {
        (r.predict, r.actions[0])
        for r in config.runs.values()
        if r.headline and r.task == "cruxeval" and r.items is None and r.flags.get("constrained")
    }
    assert crux == {("output", "breakpoint"), ("output", "step_return"), ("input", "inv_step_call")}
    folders = {r.data for r in config.runs.values() if r.headline and r.task == "next-state"}
    assert folders == {
        "heldout",
        "heldout-real",
        "heldout-packages",
        "heldout-drills",
        "heldout-everyday",
    }
    heads = [r for r in config.runs.values() if r.headline and r.task == "next-state"]
    assert all(r.flags.get("constrained") and not r.actions for r in heads)  # every action


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[runs.a]\ntask = "train"', "task must be one of"),
        ('[runs.a]\ntask = "next-state"\ndata = "h"\nspeed = 3', "unknown key speed"),
        ('[runs.a]\ntask = "next-state"\ndata = "h"\nout = "../x.json"', "out is a file name"),
        ('[runs.a]\ntask = "cruxeval"\nactions = ["step_return"]', "predict = 'output'"),
        ('[runs.a]\ntask = "next-state"', "names its held-out folder"),
        ('[runs.a]\ntask = "next-state"\ndata = "h"\nflags = { long = false }', "never false"),
        ("[runs.a\n", "runs.toml"),
    ],
)
def test_a_bad_run_is_refused_with_its_reason(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "runs.toml"
    path.write_text(text)
    with pytest.raises(runs.ConfigError, match=message):
        runs.load(path)


def test_an_unknown_option_is_found_before_anything_runs(tmp_path: Path, capsys) -> None:
    path = tmp_path / "runs.toml"
    path.write_text(
        '[runs.fine]\ntask = "next-state"\ndata = "h"\n'
        '[runs.typo]\ntask = "next-state"\ndata = "h"\nflags = { constraned = true }\n'
    )
    assert ndb(["eval", "run", "--config", str(path), "--dry-run"]) == 2
    out = capsys.readouterr().out
    assert "--constraned" in out and "unrecognized arguments" in out
    assert ndb(["eval", "run", "nope", "--config", str(path)]) == 2
    assert "no run named nope" in capsys.readouterr().out


def test_dry_run_prints_each_models_command_and_skips_missing_data(tmp_path: Path, capsys) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for model in (old, new):
        model.mkdir()
        (model / "config.json").write_text("{}")
    (tmp_path / "data" / "heldout").mkdir(parents=True)
    argv = ["eval", "run", "next_state_constrained", "next_state_packages", "--dry-run"]
    argv += ["--model", str(old), "--model", str(new), "--data-root", str(tmp_path / "data")]
    assert ndb(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    commands = [shlex.split(line)[1:] for line in lines if line.startswith("ndb eval next-state")]
    assert len(commands) == 4  # two runs, two models
    for model in (old, new):
        ok = runs.argv(runs.load().runs["next_state_constrained"], model, tmp_path / "data")
        assert ok in commands and ok[-1].endswith(f"{model.name}/next_state_constrained.json")
    skips = [line for line in lines if line.startswith("skip next_state_packages")]
    assert len(skips) == 2 and all("heldout-packages (data missing)" in s for s in skips)
    assert lines[-1] == "ndb eval run: checked 2, skipped 2 (data missing), failed 0"
    assert not (runs.RESULTS / "old").exists() and not (runs.RESULTS / "new").exists()


def test_a_broken_run_fails_alone_and_a_missing_set_is_skipped(tmp_path: Path, capsys) -> None:
    config = tmp_path / "runs.toml"
    config.write_text(
        '[runs.broken]\ntask = "next-state"\ndata = "empty"\nitems = 1\n'
        '[runs.absent]\ntask = "next-state"\ndata = "nothing"\n'
    )
    (tmp_path / "data" / "empty").mkdir(parents=True)  # a folder without shards
    argv = ["eval", "run", "--config", str(config), "--data-root", str(tmp_path / "data")]
    assert ndb([*argv, "--results", str(tmp_path / "results"), "--model", str(MODEL)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any("broken (ndb-small) stopped: FileNotFoundError: no shard" in x for x in lines)
    assert any(x.startswith("skip absent (ndb-small): no ") for x in lines)
    assert lines[-2:] == [
        "ndb eval run: ran 0, skipped 1 (data missing), failed 1",
        "  failed: broken (ndb-small)",
    ]


def test_training_tokens_add_up_every_stage(tmp_path: Path) -> None:
    assert runs.training_tokens(tmp_path) is None  # no run.json
    earlier = [{"tokens": 300}, {"tokens": 20}]
    (tmp_path / "run.json").write_text(json.dumps({"state": {"tokens_seen": 4000}}))
    assert runs.training_tokens(tmp_path) == 4000
    (tmp_path / "run.json").write_text(
        json.dumps({"state": {"tokens_seen": 4000, "earlier": earlier}})
    )
    assert runs.training_tokens(tmp_path) == 4320


def test_a_limited_run_never_writes_over_stored_results(capsys) -> None:
    assert ndb(["eval", "run", "next_state", "--limit", "2"]) == 2
    assert "--limit would write over stored results" in capsys.readouterr().out


def test_a_missing_model_folder_is_an_error(tmp_path: Path, capsys) -> None:
    assert ndb(["eval", "run", "next_state", "--model", str(tmp_path / "none")]) == 2
    assert "no model in" in capsys.readouterr().out


@needs_model
def test_a_real_tiny_run_goes_through_the_one_command(tmp_path: Path, capsys) -> None:
    """The shipped model on two CruxEval-shaped items and on two held-out items for each of a
    run's four actions (the tracked set), through ``ndb eval run``; the packages set is not
    there and is skipped."""
    data = tmp_path / "data"
    with tarfile.open(HELDOUT) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith("heldout/")]
        archive.extractall(data, members=members, filter="data")
    results = tmp_path / "results"
    argv = ["eval", "run", "cruxeval_output_step_return_constrained"]
    argv += ["next_state_constrained_160"]
    argv += ["next_state_packages", "--limit", "2", "--data-root", str(data)]
    argv += ["--results", str(results), "--cruxeval", str(items_file(tmp_path))]
    assert ndb(argv) == 0
    out = capsys.readouterr().out
    assert "skip next_state_packages (ndb-small): no " in out
    assert out.splitlines()[-1] == "ndb eval run: ran 2, skipped 1 (data missing), failed 0"
    state = json.loads((MODEL / "run.json").read_text())["state"]
    tokens = state["tokens_seen"] + sum(stage["tokens"] for stage in state.get("earlier", []))

    crux = json.loads((results / "ndb-small" / "cruxeval_output_step_return_constrained.json")
                      .read_text())  # fmt: skip
    assert crux["n"] == 2 and [r["id"] for r in crux["records"]] == ["a", "b"]
    assert crux["decoding"] == "constrained greedy" and crux["training_tokens"] == tokens
    assert crux["run"] == "cruxeval_output_step_return_constrained"
    assert crux["run_command"].startswith("ndb eval run cruxeval_output_step_return_constrained")
    assert "--limit 2" in crux["run_command"] and "--limit 2" in crux["command"]

    state = json.loads((results / "ndb-small" / "next_state_constrained_160.json").read_text())
    assert state["per_action"] == 2 and Path(state["data"]).name == "heldout"
    assert state["decoding"] == "constrained (embedded engine)"
    assert set(state["results"]) == {"step_over", "inv_step_into", "breakpoint", "step_into"}
    assert all(row["exact"]["n"] == 2 for row in state["results"].values())
    assert state["run_command"].endswith("--limit 2") and "--per-action 2" in state["command"]
    assert not (results / "ndb-small" / "next_state_packages.json").exists()
