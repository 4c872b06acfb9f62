"""``ndb data`` and ``ndb train``: make trajectory data, train the model."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


def add_parsers(commands: argparse._SubParsersAction) -> None:
    data = commands.add_parser(
        "data",
        help="generate training trajectories (all cores)",
        description="Generate programs, trace them, sample forward and inverse trajectories with "
        "the paper's policy and write JSONL shards plus stats.json. The sources' shares come "
        "from training/mix.toml unless --mix is given. Programs matching a CruxEval, HumanEval "
        "or MBPP function after normalisation are dropped and counted per benchmark.",
    )
    data.add_argument("--out", required=True, type=Path, help="folder for the shards")
    data.add_argument("--programs", type=int, default=2000, help="programs to generate")
    data.add_argument(
        "--seed", type=int, default=0, help="generator seed (use another for held-out)"
    )
    data.add_argument(
        "--workers", type=int, default=os.cpu_count(), help="processes (default: all cores)"
    )
    data.add_argument("--max-states", type=int, default=24, help="states per trajectory at most")
    data.add_argument(
        "--shard-size",
        type=int,
        default=5_000,
        help="trajectories per shard (smaller: a streaming trainer gets them sooner)",
    )
    data.add_argument(
        "--mix",
        default=None,
        help="shares of program origins, overriding the mix file, e.g. "
        "generated=0.75,package=0.1,repo=0.15 (generated includes the standard-library "
        "functions; package: installed pure-Python packages; repo: calls sampled from "
        "test-suite runs; library: pinned packages' functions called with doctest and "
        "hypothesis-drawn arguments; drills: builtin drills; everyday: everyday scripts)",
    )
    data.add_argument(
        "--mix-config",
        type=Path,
        default=None,
        help="TOML file whose [shares] table gives the mix when --mix is not given "
        "(default: training/mix.toml)",
    )
    data.add_argument(
        "--cruxeval",
        type=Path,
        default=None,
        help="CruxEval JSONL to filter against (default: shared/benchmarks/cruxeval.jsonl)",
    )
    data.add_argument(
        "--eager",
        action="store_true",
        help="for a streaming trainer: start the other origins' programs while the repository "
        "calls are harvested, so the first shard lands sooner (which shard holds which program "
        "then depends on timing)",
    )
    data.add_argument(
        "--exclude",
        type=Path,
        default=None,
        help="leave out programs found in these shards (make held-out data unseen)",
    )
    data.add_argument(
        "--functions",
        choices=["train", "heldout", "all"],
        default="train",
        help="which real (stdlib, package, library, repo) functions and drill families may "
        "appear: the training side of the fixed split by name and held-out library (default), "
        "the held-out side, or all",
    )
    data.add_argument(
        "--any-python",
        action="store_true",
        help="allow an interpreter other than the data Python (3.11); its trajectories are "
        "another language, never to be mixed into the shipped model's training data",
    )
    data.set_defaults(run=run_data)

    train = commands.add_parser(
        "train",
        help="train the model on generated trajectories",
        description="Train a Llama-architecture model from scratch (or resume) and write an "
        "HF-format model folder: config.json, bf16 safetensors shards, tokenizer.json.",
    )
    train.add_argument(
        "--config",
        default="tiny",
        help="tiny, tiny-wide (tests), small (CPU); gpu-small, gpu-17m, gpu-21m, gpu-25m, "
        "gpu-base (GPU)",
    )
    train.add_argument(
        "--data", required=True, type=Path, help="folder with train/ and heldout/ shards"
    )
    train.add_argument("--out", required=True, type=Path, help="run folder (model + checkpoint)")
    train.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="model or run folder to continue from (its weights and tokenizer)",
    )
    train.add_argument("--steps", type=int, default=None, help="override the config's max steps")
    train.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="wall-clock budget: the cosine schedule anneals to zero by then and training stops",
    )
    train.add_argument("--lr", type=float, default=None, help="override the config's peak rate")
    train.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    train.add_argument(
        "--tokenizer",
        type=Path,
        default=None,
        help="model folder whose tokenizer a new model takes (default: train one on the data)",
    )
    train.add_argument(
        "--tokenizer-kind",
        choices=["value", "bpe"],
        default=None,
        help="the tokenizer a new model trains (default value: digits one by one, punctuation "
        "alone, short pieces; bpe: the shipped model's kind); a resumed model keeps its own",
    )
    train.add_argument(
        "--schedule",
        choices=["wsd", "cosine"],
        default=None,
        help="learning-rate schedule after warmup (default: the config's; wsd for gpu-*)",
    )
    train.add_argument(
        "--decay",
        type=float,
        default=None,
        help="wsd: share of the run spent decaying to zero (default 0.2; 0: stay at the peak)",
    )
    train.add_argument(
        "--grow",
        action="store_true",
        help="grow the --resume model folder into --config's wider and deeper shape first, "
        "computing the same function (training/grow.py)",
    )
    train.add_argument(
        "--workers", type=int, default=1, help="processes that tokenize and pack the data"
    )
    train.add_argument(
        "--stream",
        type=Path,
        default=None,
        help="folder a concurrent `ndb data` writes into: each shard joins the training data "
        "as soon as it is closed (fresh data instead of more passes over the same)",
    )
    train.add_argument(
        "--stream-workers", type=int, default=4, help="processes that pack streamed shards"
    )
    train.add_argument(
        "--stream-rows",
        type=int,
        default=0,
        help="rows the corpus holds at most (each block_size+1 ids); streamed rows beyond it "
        "replace the oldest (default: the carried data's size, so a stream only replaces)",
    )
    train.set_defaults(run=run_train)


def run_data(args: argparse.Namespace) -> int:
    from neural_debugger.paths import cruxeval_path

    from .data import MIX_CONFIG, DataSpec, generate_data, load_mix, parse_mix, python_mismatch

    mismatch = python_mismatch()
    if mismatch and not args.any_python:
        print(f"ndb data: error: {mismatch} (--any-python overrides)")
        return 2
    cruxeval = args.cruxeval or cruxeval_path()
    if not cruxeval.exists():
        print(f"ndb data: error: CruxEval file {cruxeval} not found (needed to filter)")
        return 2
    try:
        mix = parse_mix(args.mix) if args.mix else load_mix(args.mix_config or MIX_CONFIG)
    except ValueError as err:
        print(f"ndb data: error: --mix: {err}")
        return 2
    spec = DataSpec(
        programs=args.programs,
        seed=args.seed,
        max_states=args.max_states,
        mix=mix,
        functions=args.functions,
        shard_size=args.shard_size,
    )
    try:
        stats = generate_data(
            spec,
            args.out,
            str(cruxeval),
            workers=args.workers,
            exclude=args.exclude,
            eager=args.eager,
        )
    except ValueError as err:
        print(f"ndb data: error: {err}")
        return 2
    summary = stats.to_json()
    print(
        json.dumps(
            {
                k: summary[k]
                for k in (
                    "programs",
                    "dropped_cruxeval",
                    "untraceable",
                    "rejected",
                    "trajectories",
                    "directions",
                    "origins",
                    "dropped_benchmarks",
                    "dropped_cruxeval_origins",
                    "character_shares",
                )
            }
        )
    )
    print(f"dropped {stats.dropped_cruxeval} programs matching CruxEval functions")
    for name, size in sorted(stats_json_benchmarks(args.out).items()):
        dropped = stats.dropped_benchmarks.get(name, 0)
        print(f"  {name}: {size} functions checked, {dropped} programs dropped")
    return 0


def stats_json_benchmarks(out: Path) -> dict[str, int]:
    """The benchmarks the run filtered against (functions per benchmark) from stats.json."""
    path = out / "stats.json"
    return json.loads(path.read_text()).get("benchmarks", {}) if path.exists() else {}


def run_train(args: argparse.Namespace) -> int:
    from .train import config_by_name, train

    try:
        config = config_by_name(
            args.config,
            max_steps=args.steps,
            lr=args.lr,
            tokenizer=args.tokenizer_kind,
            schedule=args.schedule,
            decay_fraction=args.decay,
        )
    except ValueError as err:
        print(f"ndb train: error: {err}")
        return 2
    if args.grow and args.resume is None:
        print("ndb train: error: --grow needs --resume: the model folder to grow")
        return 2
    train(
        config,
        args.data / "train",
        args.data / "heldout",
        args.out,
        resume_from=args.resume,
        device=args.device,
        max_minutes=args.minutes,
        tokenizer_from=args.tokenizer,
        workers=args.workers,
        stream=args.stream,
        stream_workers=args.stream_workers,
        stream_rows=args.stream_rows,
        grow=args.grow,
    )
    return 0
