"""The streamed-data benchmark: it makes and packs real programs and splits a machine by them."""

from __future__ import annotations

import json
from pathlib import Path

from neural_debugger.evaluation.bench_stream import main, split


def test_the_benchmark_measures_making_and_packing_per_origin(tmp_path: Path) -> None:
    out = tmp_path / "stream_bench.json"
    assert main(["--programs", "6", "--origins", "drills,everyday", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result["origins"]) == {"drills", "everyday"}
    for row in result["origins"].values():
        assert row["programs"] == 6 and row["trajectories"] == 24  # 2 forward, 2 inverse each
        assert row["make_ms_per_trajectory"] > 0 and row["pack_ms_per_trajectory"] > 0
    assert result["make_to_pack"] > 0
    workers = result["split_16_cores"]
    assert workers["GEN_WORKERS"] + workers["PACK_WORKERS"] == 14


def test_the_split_follows_the_cost_ratio() -> None:
    assert split(16, make_ms=9.0, pack_ms=1.0) == {
        "cores": 16,
        "GEN_WORKERS": 12,
        "PACK_WORKERS": 2,
    }
    assert split(16, make_ms=1.0, pack_ms=1.0)["PACK_WORKERS"] == 9  # 14 * 0.5 * 1.25, rounded up
    assert split(4, make_ms=1.0, pack_ms=0.0)["PACK_WORKERS"] == 1  # never none
