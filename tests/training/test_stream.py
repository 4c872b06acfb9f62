"""Data that lands while the model trains: the data step's progress record, the packing stream,
the corpus buffer, a training run that takes a live `ndb data` run's shards, and the exclusions
such a run is given."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from neural_debugger.model_backend.tokenizer import PAD, load_tokenizer
from neural_debugger.paths import cruxeval_path
from neural_debugger.training.corpus import Corpus
from neural_debugger.training.data import DataSpec, generate_data, source_hash
from neural_debugger.training.exclusions import excluded_hashes
from neural_debugger.training.exclusions import main as exclusions_main
from neural_debugger.training.model_card import render
from neural_debugger.training.programs import generate_programs
from neural_debugger.training.shards import read_shards
from neural_debugger.training.stream import ShardStream
from neural_debugger.training.train import _pack_serial, config_by_name, train

SHIPPED = Path(__file__).parents[2] / "models" / "ndb-small"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(tmp_path_factory.mktemp("data"))
    generate_data(DataSpec(programs=60, seed=31, max_states=10), root / "train", None, 1)
    generate_data(DataSpec(programs=10, seed=32, max_states=10), root / "heldout", None, 1)
    return root


@pytest.fixture(scope="module")
def small_shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(tmp_path_factory.mktemp("stream")) / "stream"
    generate_data(DataSpec(programs=60, seed=33, max_states=10, shard_size=50), folder, None, 1)
    return folder


def test_the_data_step_records_its_closed_shards(small_shards: Path) -> None:
    stats = json.loads((small_shards / "stats.json").read_text())
    shards = sorted(small_shards.glob("shard-*.jsonl"))
    assert stats["complete"] is True
    assert stats["complete_shards"] == len(shards) > 2
    assert sum(1 for _ in read_shards(small_shards)) == stats["trajectories"]
    assert not (small_shards / "stats.json.part").exists()


def test_a_live_data_step_says_how_many_shards_are_closed(tmp_path: Path) -> None:
    out = tmp_path / "live"
    command = [sys.executable, "-m", "neural_debugger", "data", "--out", str(out)]
    command += ["--programs", "400", "--seed", "34", "--workers", "1", "--shard-size", "40"]
    command += ["--max-states", "8", "--cruxeval", str(cruxeval_path()), "--mix", "generated=1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        seen_partial = None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and process.poll() is None:
            stats_file = out / "stats.json"
            if stats_file.exists():
                stats = json.loads(stats_file.read_text())
                if not stats["complete"]:
                    seen_partial = stats
                    break
            time.sleep(0.2)
        assert seen_partial is not None, "no partial stats.json while the data step ran"
        closed = seen_partial["complete_shards"]
        assert closed >= 1
        # every shard it calls closed is there, whole (each line a parseable record)
        for index in range(closed):
            lines = (out / f"shard-{index:05d}.jsonl").read_text().splitlines()
            assert len(lines) == 40
            assert all(json.loads(line)["text"] for line in lines)
    finally:
        process.kill()
        process.wait()


def test_the_stream_packs_every_closed_shard_like_the_trainer_does(small_shards: Path) -> None:
    tokenizer = load_tokenizer(SHIPPED)
    pad = tokenizer.token_to_id(PAD)
    stream = ShardStream(small_shards, tokenizer, 256, pad, workers=2, seed=5)
    assert not stream.drained  # nothing read yet
    try:
        parts = []
        deadline = time.monotonic() + 120
        closed = json.loads((small_shards / "stats.json").read_text())["complete_shards"]
        while len(parts) < closed and time.monotonic() < deadline:
            parts += stream.poll()
            time.sleep(0.1)
    finally:
        stream.close()
    assert len(parts) == closed and not stream.failures
    assert stream.generator["complete"] is True
    assert stream.drained  # the data run is complete and every shard handed over
    texts = [record["text"] for record in read_shards(small_shards)]
    whole = _pack_serial(texts, tokenizer, 256, 0, pad)
    assert sum(part.documents for part in parts) == whole.documents
    assert sum(part.target_tokens for part in parts) == whole.target_tokens
    for part in parts:
        assert part.tokens.dtype == torch.int16 and part.weights.dtype == torch.bool
        assert part.tokens.shape[1] == 257 and part.weights.shape[1] == 256


def test_a_shard_that_cannot_be_packed_is_skipped_and_named(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "shard-00000.jsonl").write_text("{not json\n")
    (folder / "stats.json").write_text(json.dumps({"complete_shards": 1, "complete": True}))
    tokenizer = load_tokenizer(SHIPPED)
    stream = ShardStream(folder, tokenizer, 128, tokenizer.token_to_id(PAD), workers=1)
    try:
        parts: list = []
        deadline = time.monotonic() + 60
        while not stream.failures and time.monotonic() < deadline:
            parts += stream.poll()
            time.sleep(0.1)
    finally:
        stream.close()
    assert parts == [] and len(stream.failures) == 1
    assert "JSONDecodeError" in stream.failures[0]


def test_the_corpus_replaces_its_oldest_rows_once_full() -> None:
    def rows(first: int, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        tokens = torch.arange(first, first + n).unsqueeze(1).repeat(1, 5)
        return tokens, torch.ones((n, 4))

    corpus = Corpus(*rows(0, 3), capacity=5, device="cpu")
    assert (corpus.filled, corpus.capacity) == (3, 5)
    corpus.add(*rows(100, 4))  # two fit, two replace rows 0 and 1
    assert corpus.filled == 5 and corpus.overwritten == 2 and corpus.added == 4
    assert sorted(corpus.tokens[:, 0].tolist()) == [2, 100, 101, 102, 103]
    corpus.add(*rows(200, 12))  # more than the capacity at once: the last five stay
    assert sorted(corpus.tokens[:, 0].tolist()) == [207, 208, 209, 210, 211]
    tokens, weights = corpus.sample(64, torch.Generator().manual_seed(0))
    assert tokens.dtype == torch.int64 and weights.dtype == torch.float32
    assert set(tokens[:, 0].tolist()) <= {207, 208, 209, 210, 211}
    # without a stream the corpus is the carried data's size
    assert Corpus(*rows(0, 3), capacity=0, device="cpu").capacity == 3


def test_training_takes_a_stream_and_records_it(data: Path, small_shards: Path, tmp_path: Path):
    config = config_by_name("tiny", max_steps=60, eval_every=30)
    state = train(
        config,
        data / "train",
        data / "heldout",
        tmp_path / "run",
        tokenizer_from=SHIPPED,
        stream=small_shards,
        stream_workers=2,
        stream_rows=100_000,
        log=lambda _: None,
    )
    closed = json.loads((small_shards / "stats.json").read_text())["complete_shards"]
    streamed = state.streamed
    # packing runs beside 60 tiny steps: some shards may still be in the workers at the end
    assert 1 <= streamed["shards"] <= closed and streamed["failed_shards"] == 0
    assert streamed["rows"] > 0 and streamed["target_tokens"] > 0
    assert (
        streamed["data"]["programs"]
        == json.loads((small_shards / "stats.json").read_text())["programs"]
    )
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["state"]["streamed"] == streamed
    card = render(tmp_path / "run", [data], None, "a test machine", [])
    assert f"Stage 1 also trained on data made while it trained: {streamed['shards']:,}" in card


def test_exclusions_hold_held_out_programs_and_the_horizon_programs(
    data: Path, tmp_path: Path
) -> None:
    assert exclusions_main([str(tmp_path / "ex"), "--shards", str(data / "heldout"),
                            "--horizon-programs", "20", "--horizon-seed", "7001"]) == 0  # fmt: skip
    written = {r["source_hash"] for r in read_shards(tmp_path / "ex")}
    held_out = {r["source_hash"] for r in read_shards(data / "heldout")}
    horizon = {source_hash(p.source) for p in generate_programs(7001, 20)}
    assert written == held_out | horizon
    assert set(excluded_hashes([data / "heldout"], 0, 7001)) == held_out
    # the data step leaves them out: the held-out programs' own spec made again, excluded
    stats = generate_data(
        DataSpec(programs=10, seed=32, max_states=10), tmp_path / "again", None, 1,
        exclude=tmp_path / "ex",
    )  # fmt: skip
    made = json.loads((data / "heldout" / "stats.json").read_text())["programs"]
    assert stats.programs == 0 and stats.dropped_seen == made > 0
