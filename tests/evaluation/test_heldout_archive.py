"""The tracked held-out sets (evaluation/heldout/v1.tar.xz) that stored next-state numbers use.

They are tracked because the generator keeps growing: the same seeds draw other programs later,
so numbers are comparable only on the very same items. These tests check the archive is whole.
(``make data`` leaves its programs out of training data through ``training/exclusions.py``,
whose tests are in ``tests/training/test_stream.py``.)
"""

from __future__ import annotations

import json
import tarfile
from collections import Counter
from pathlib import Path

import pytest

from neural_debugger.protocol.parse import parse_trajectory
from neural_debugger.training.programs.split import function_of, is_heldout_function
from neural_debugger.training.shards import read_shards

ARCHIVES = sorted((Path(__file__).resolve().parents[2] / "evaluation" / "heldout").glob("*.tar.xz"))


@pytest.fixture(scope="module")
def heldout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("heldout")
    for path in ARCHIVES:
        with tarfile.open(path) as archive:
            archive.extractall(root, filter="data")
    return root


def test_later_draws_repeat_no_program_of_the_other_sets(heldout: Path) -> None:
    """heldout-2 and heldout-3 are independent samples: none of their programs is in another set.

    (heldout/ and heldout-real/ may share a standard-library call with the same inputs: both
    are evaluation sets, and the real-code set is scored on its own.)
    """
    sets = {d.name: {r["source_hash"] for r in read_shards(d)} for d in heldout.iterdir()}
    assert sorted(sets) == ["heldout", "heldout-2", "heldout-3", "heldout-real"]
    for draw in ("heldout-2", "heldout-3"):
        others = set().union(*(hashes for name, hashes in sets.items() if name != draw))
        assert sets[draw] and not sets[draw] & others


@pytest.mark.parametrize("name", ["heldout", "heldout-real", "heldout-2", "heldout-3"])
def test_each_set_matches_its_statistics_and_parses(heldout: Path, name: str) -> None:
    folder = heldout / name
    stats = json.loads((folder / "stats.json").read_text())
    records = list(read_shards(folder))
    assert len(records) == stats["trajectories"]
    assert len({r["program"] for r in records}) == stats["programs"]
    actions: Counter[str] = Counter()
    for record in records:
        trajectory = parse_trajectory(record["text"])
        assert len(trajectory.states) == record["states"]
        actions.update(a.kind.value for a in trajectory.actions)
    assert dict(actions) == stats["actions"]


def test_real_code_set_holds_only_held_out_functions(heldout: Path) -> None:
    functions = {function_of(r["origin"]) for r in read_shards(heldout / "heldout-real")}
    assert functions and None not in functions
    assert all(is_heldout_function(f) for f in functions)
