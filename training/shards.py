"""Trajectory shards: JSON lines files ``shard-NNNNN.jsonl``, one trajectory record per line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class ShardWriter:
    """Writes records as JSON lines, ``size`` records per shard file."""

    def __init__(self, folder: Path, size: int) -> None:
        self.folder, self.size = folder, size
        self.index, self.count = 0, 0
        self.file = None

    def write(self, records: list[dict[str, Any]]) -> None:
        for rec in records:
            if self.file is None or self.count >= self.size:
                self.close()
                self.file = (self.folder / f"shard-{self.index:05d}.jsonl").open("w")
                self.index += 1
                self.count = 0
            self.file.write(json.dumps(rec, ensure_ascii=False) + "\n")
            self.count += 1

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def read_shards(folder: Path) -> Iterator[dict[str, Any]]:
    """Every record of every shard in ``folder``, in order."""
    shards = sorted(folder.glob("shard-*.jsonl"))
    if not shards:
        raise FileNotFoundError(f"no shard-*.jsonl files in {folder}")
    for shard in shards:
        with shard.open() as f:
            for line in f:
                yield json.loads(line)
