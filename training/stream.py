"""Training data that lands while the model trains (``ndb train --stream DIR``).

Why: a small model trained for minutes on a GPU sees a carried corpus many times over and
overfits it, while the machine's CPU cores idle. So an ``ndb data`` run writes fresh shards
into ``DIR`` beside the trainer, and this module packs each shard as soon as ``stats.json``
says it is closed (``complete_shards``), in worker processes of lowered priority (the
trainer's own process keeps its core). The training loop polls now and then and adds what is
packed to its corpus (:mod:`.corpus`), which drops its oldest rows once full.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

_worker_tokenizer = None


def _start_worker(tokenizer) -> None:
    global _worker_tokenizer
    _worker_tokenizer = tokenizer
    os.nice(10)  # the trainer's process comes first


def _pack_shard(
    path: str, block_size: int, seed: int, pad_id: int
) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    """One shard, packed in a worker: rows (int16), target weights (bool), documents, target
    tokens."""
    from .train import _pack_serial

    with open(path) as f:
        texts = [json.loads(line)["text"] for line in f]
    packed = _pack_serial(texts, _worker_tokenizer, block_size, seed, pad_id)
    return (
        packed.tokens.to(torch.int16),
        packed.weights.to(torch.bool),
        packed.documents,
        packed.target_tokens,
    )


@dataclass
class StreamedRows:
    """One packed shard, ready for the corpus."""

    tokens: torch.Tensor  # int16 [n, block_size + 1]
    weights: torch.Tensor  # bool [n, block_size]
    documents: int
    target_tokens: int


@dataclass
class ShardStream:
    """Packs the shards a concurrent ``ndb data`` closes in ``folder``, in ``workers``
    processes. :meth:`poll` never blocks: it hands over what is packed so far."""

    folder: Path
    tokenizer: Any
    block_size: int
    pad_id: int
    workers: int
    seed: int = 0
    submitted: int = 0  # shards 0 .. submitted - 1 are packed or being packed
    generator: dict[str, Any] = field(default_factory=dict)  # the writer's last stats.json
    failures: list[str] = field(default_factory=list)  # shards that could not be packed, why
    _pending: list[Future] = field(default_factory=list)
    _pool: ProcessPoolExecutor | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError("a stream needs at least one packing worker")
        if self.tokenizer.get_vocab_size() > torch.iinfo(torch.int16).max:
            raise ValueError("streamed rows keep token ids in int16; the vocabulary is larger")
        # spawn, not fork: see train.pack
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(self.tokenizer,),
        )

    def _closed_shards(self) -> int:
        try:
            stats = json.loads((self.folder / "stats.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return 0  # nothing closed yet (the writer replaces the file whole)
        self.generator = stats
        return int(stats.get("complete_shards", 0))

    def poll(self) -> list[StreamedRows]:
        """Queue newly closed shards for packing; return the shards packed since the last
        call. A shard that fails to pack is skipped and named in ``failures``."""
        assert self._pool is not None, "the stream is closed"
        closed = self._closed_shards()
        # at most two shards queued per worker: the trainer takes the freshest data soon
        while self.submitted < closed and len(self._pending) < 2 * self.workers:
            path = self.folder / f"shard-{self.submitted:05d}.jsonl"
            seed = self.seed + self.submitted
            self._pending.append(
                self._pool.submit(_pack_shard, str(path), self.block_size, seed, self.pad_id)
            )
            self.submitted += 1
        done = [f for f in self._pending if f.done()]
        self._pending = [f for f in self._pending if not f.done()]
        packed = []
        for future in done:
            error = future.exception()
            if error is None:
                packed.append(StreamedRows(*future.result()))
            else:
                self.failures.append(f"{type(error).__name__}: {error}")
        return packed

    @property
    def drained(self) -> bool:
        """The data run has ended and every shard it closed is packed and handed over: no
        fresh rows come from here on (the trainer then draws only the rows it holds)."""
        return (
            bool(self.generator.get("complete"))
            and self.submitted >= int(self.generator.get("complete_shards", 0))
            and not self._pending
        )

    def close(self) -> None:
        """Stop packing; shards still queued are dropped."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
