"""The split of real code by function: data of each side, and held-out evaluation by function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neural_debugger.evaluation.next_state import load_items, trained_functions
from neural_debugger.training.data import DataSpec, Job, _work, pool_on_side
from neural_debugger.training.programs import generate_programs, package_programs
from neural_debugger.training.programs.repo_tests import (
    SUITES,
    HarvestedCall,
    RepoPool,
)
from neural_debugger.training.programs.split import (
    HELDOUT_SHARE,
    function_of,
    is_heldout_function,
    on_side,
)
from neural_debugger.training.programs.stdlib import catalog


def test_function_of_names_the_real_function_of_every_origin() -> None:
    assert function_of("stdlib:json.encoder.py_encode_basestring_ascii") == (
        "json.encoder.py_encode_basestring_ascii"
    )
    assert function_of("package:idna.intranges.intranges_from_list") == (
        "idna.intranges.intranges_from_list"
    )
    assert function_of("repo:test_statistics.TestStdev.test_x:statistics._ss") == "statistics._ss"
    assert function_of("generated:function") is None
    assert function_of("generated:script") is None


def test_the_split_is_stable_and_about_the_stated_share() -> None:
    names = [f"module{i}.function{i}" for i in range(4000)]
    held = [n for n in names if is_heldout_function(n)]
    assert abs(len(held) / len(names) - HELDOUT_SHARE) < 0.02
    assert held == [n for n in names if is_heldout_function(n)]
    # one function, one side, whichever origin it comes through
    name = held[0]
    assert on_side(f"stdlib:{name}", "heldout") and on_side(f"repo:t.T.test:{name}", "heldout")
    assert not on_side(f"package:{name}", "train")
    assert on_side("generated:function", "train") and on_side("generated:function", "heldout")
    assert all(on_side(f"stdlib:{n}", "all") for n in names[:50])


def test_program_sources_keep_to_their_side() -> None:
    train_stdlib = {
        p.origin for p in generate_programs(5, 120, "train") if p.origin.startswith("stdlib:")
    }
    assert train_stdlib and not any(is_heldout_function(function_of(o)) for o in train_stdlib)
    heldout = {p.origin for p in package_programs(5, 20, "heldout")[0]}
    assert heldout and all(is_heldout_function(function_of(o)) for o in heldout)
    train = {p.origin for p in package_programs(5, 40, "train")[0]}
    assert train and heldout.isdisjoint(train)
    # both sides of the stdlib catalog are non-empty, so either side can be generated
    sides = {is_heldout_function(function_of(f.spec.origin)) for f in catalog()}
    assert sides == {True, False}


def test_repo_pool_keeps_only_calls_of_its_side() -> None:
    suite = next(s for s in SUITES if s.module == "statistics")
    names = ["fmean", "median_grouped", "mean", "_ss", "variance", "stdev"]
    calls = [HarvestedCall(n, f"{n}([1, 2])", {}, 3) for n in names]
    pool = RepoPool([("t1", suite, calls)], functions={f"statistics.{n}" for n in names})
    held = pool_on_side(pool, "heldout")
    kept = {c.function for _, _, cs in held.tests for c in cs}
    assert kept == {n for n in names if is_heldout_function(f"statistics.{n}")}
    assert held.functions == {f"statistics.{n}" for n in kept}
    train = pool_on_side(pool, "train")
    assert {c.function for _, _, cs in train.tests for c in cs} == set(names) - kept
    assert len(pool_on_side(pool, "all").tests[0][2]) == len(names)


def _shards(folder: Path, records: list[dict]) -> Path:
    folder.mkdir(parents=True)
    with (folder / "shard-00000.jsonl").open("w") as out:
        for rec in records:
            out.write(json.dumps(rec) + "\n")
    return folder


@pytest.mark.parametrize("side", ["train", "heldout"])
def test_data_of_a_side_holds_only_its_functions(side: str) -> None:
    spec = DataSpec(programs=6, seed=3, max_states=8, functions=side)
    records, stats = _work(Job(spec, "package", 0, 0, 6, None, frozenset()))
    assert stats.programs >= 4
    assert {is_heldout_function(function_of(r["origin"])) for r in records} == {side == "heldout"}


def test_next_state_items_can_be_held_out_by_function(tmp_path: Path) -> None:
    spec = DataSpec(programs=8, seed=11, max_states=8, functions="all")
    train, _ = _work(Job(spec, "package", 0, 0, 8, None, frozenset()))
    other, _ = _work(
        Job(DataSpec(8, 12, max_states=8, functions="all"), "package", 1, 8, 8, None, frozenset())
    )
    generated, _ = _work(
        Job(DataSpec(2, 13, max_states=8), "generated", 0, 16, 2, None, frozenset())
    )
    train_dir = _shards(tmp_path / "train", train)
    data_dir = _shards(tmp_path / "heldout", other + generated)
    seen = trained_functions(train_dir)
    assert seen == {function_of(r["origin"]) for r in train}

    everything = load_items(data_dir, 1000, 0, 100_000)
    unseen = load_items(data_dir, 1000, 0, 100_000, unseen=train_dir)
    assert {i.origin.split(":")[0] for i in everything} == {"package", "generated"}
    assert all(function_of(i.origin) not in seen for i in unseen)
    dropped = [i for i in everything if function_of(i.origin) in seen]
    assert dropped and any(i.origin.startswith("package:") for i in unseen)
    assert len(unseen) == len(everything) - len(dropped)
    only_generated = load_items(data_dir, 1000, 0, 100_000, origins=("generated",))
    assert only_generated and {i.origin.split(":")[0] for i in only_generated} == {"generated"}


def test_next_state_refuses_an_unknown_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from neural_debugger.cli import main

    args = ["eval", "next-state", "--model", str(tmp_path), "--data", str(tmp_path)]
    assert main([*args, "--origins", "generated,repos"]) == 2
    said = capsys.readouterr().out
    assert "unknown origin repos" in said and "generated, stdlib, package, repo" in said
