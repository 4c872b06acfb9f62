"""stream_overlap makes a past data run's generated programs again and finds held-out ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neural_debugger.training.data import CHUNK, DataSpec, generate_data
from neural_debugger.training.stream_overlap import heldout_programs, main, overlap


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real data run: 60 generated programs of seed 4242 (a whole chunk and part of one)."""
    out = tmp_path_factory.mktemp("run")
    generate_data(DataSpec(programs=CHUNK + 10, seed=4242, max_states=8), out, None, workers=2)
    return out


def test_every_program_of_a_run_is_found_again_from_its_seed(made: Path) -> None:
    programs = heldout_programs(made)
    assert len(programs) > CHUNK  # the second chunk's programs are in it too
    found = overlap(programs, seed=4242, chunks=2, workers=2)
    assert found["programs"] == 2 * CHUNK
    assert found["heldout_found"] == sorted(programs.values())


def test_another_seed_or_fewer_chunks_find_less(made: Path) -> None:
    programs = heldout_programs(made)
    first_chunk = overlap(programs, seed=4242, chunks=1, workers=1)
    assert 0 < len(first_chunk["heldout_found"]) < len(programs)
    # another seed makes other programs (a few small ones recur across seeds)
    other = overlap(programs, seed=4243, chunks=2, workers=1)["heldout_found"]
    assert len(other) < len(programs) // 4


def test_the_command_prints_each_seed(made: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main([str(made), "--seed", "4242", "--seed", "1", "--chunks", "1", "--workers", "1"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["programs"] == len(heldout_programs(made))
    assert [run["seed"] for run in report["runs"]] == [4242, 1]
    assert report["runs"][0]["programs"] == CHUNK and report["runs"][0]["heldout_found"]
    with pytest.raises(SystemExit):
        main([str(made), "--seed", "1", "--chunks", "0"])
