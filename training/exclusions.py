"""The programs training data must leave out, written as one small shard for ``--exclude``.

Why: data made away from this machine (``ndb train --stream`` on a lent GPU machine) cannot
see the held-out folders here, and carrying them whole costs room the kit needs. Only their
programs' source hashes matter to ``ndb data --exclude``, so this writes those: every record
of the given held-out shard folders, and the fresh programs ``ndb eval horizon`` draws (its
generator and seed), which no training set may hold either.

Usage: ``python -m neural_debugger.training.exclusions OUT_DIR --shards DIR [--shards DIR ...]
[--horizon-programs 200 --horizon-seed 7001]``
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .data import source_hash
from .programs import generate_programs
from .shards import read_shards


def excluded_hashes(
    shard_dirs: list[Path], horizon_programs: int, horizon_seed: int
) -> dict[str, str]:
    """Source hash → where it comes from (the first folder, or ``horizon``)."""
    hashes: dict[str, str] = {}
    for folder in shard_dirs:
        for record in read_shards(folder):
            hashes.setdefault(record["source_hash"], str(folder))
    for program in generate_programs(horizon_seed, horizon_programs):
        hashes.setdefault(source_hash(program.source), "horizon")
    return hashes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for shard-00000.jsonl")
    parser.add_argument("--shards", type=Path, action="append", default=[], help="held out")
    parser.add_argument("--horizon-programs", type=int, default=200)
    parser.add_argument("--horizon-seed", type=int, default=7001)
    args = parser.parse_args(argv)
    hashes = excluded_hashes(args.shards, args.horizon_programs, args.horizon_seed)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "shard-00000.jsonl").open("w") as f:
        for digest, source in sorted(hashes.items()):
            f.write(json.dumps({"source_hash": digest, "from": source}) + "\n")
    print(f"{len(hashes)} programs to leave out, in {args.out / 'shard-00000.jsonl'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
