"""Which programs of a held-out set a past data run generated: made again, compared by hash.

Why: a held-out draw made after a training run could not be left out of that run's data
(``ndb data --exclude`` names only the sets that existed then), and a stream made on a lent GPU
machine is gone once the run ends. The generator is deterministic per chunk
(:func:`~neural_debugger.training.data.chunk_seed`, ``CHUNK`` programs each), so while it has not
changed since, the run's generated programs can be made again here and their source hashes
compared with the set's. Only generated programs are compared: real code is held out by
function instead (``--functions``). The chunks are made on every core.

Usage: ``python -m neural_debugger.training.stream_overlap HELDOUT_DIR --seed 8800 [--seed 7700]
[--chunks 600] [--functions train]``; prints, per seed, the programs made again and the held-out
programs among them.
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .data import CHUNK, chunk_seed, source_hash
from .programs import generate_programs
from .programs.split import Side
from .shards import read_shards


def _chunk_hashes(task: tuple[int, int, Side]) -> list[str]:
    seed, chunk, side = task
    return [source_hash(p.source) for p in generate_programs(chunk_seed(seed, chunk), CHUNK, side)]


def overlap(
    heldout: dict[str, str], seed: int, chunks: int, side: Side = "train", workers: int = 0
) -> dict[str, object]:
    """How many programs the first ``chunks`` generated chunks of a data run with ``seed`` hold,
    and which of ``heldout`` (source hash → program name) are among them."""
    tasks = [(seed, chunk, side) for chunk in range(chunks)]
    made, found = 0, set()
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        for hashes in pool.map(_chunk_hashes, tasks, chunksize=8):
            made += len(hashes)
            found.update(h for h in hashes if h in heldout)
    return {
        "seed": seed,
        "chunks": chunks,
        "programs": made,
        "heldout_found": sorted(heldout[h] for h in found),
    }


def heldout_programs(folder: Path) -> dict[str, str]:
    """Source hash → program name, for every program of a shard folder."""
    return {r["source_hash"]: r["program"] for r in read_shards(folder)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("heldout", type=Path, help="a held-out shard folder")
    parser.add_argument(
        "--seed", type=int, action="append", required=True, help="a past run's ndb data --seed"
    )
    parser.add_argument(
        "--chunks", type=int, default=600, help=f"generated chunks to make ({CHUNK} programs each)"
    )
    parser.add_argument("--functions", choices=["train", "heldout", "all"], default="train")
    parser.add_argument("--workers", type=int, default=0, help="processes (default: every core)")
    args = parser.parse_args(argv)
    if args.chunks < 1:
        parser.error("--chunks must be at least 1")
    heldout = heldout_programs(args.heldout)
    results = [
        overlap(heldout, seed, args.chunks, args.functions, args.workers) for seed in args.seed
    ]
    print(
        json.dumps(
            {"heldout": str(args.heldout), "programs": len(heldout), "runs": results}, indent=1
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
