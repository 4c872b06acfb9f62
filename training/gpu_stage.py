"""Prepare one GPU training stage here, so a lent machine spends its minutes training.

A lent GPU session has 15 device minutes in all, start-up included, and one command runs at most
9 minutes with at most 64 MiB of tree and carried files. ``make gpu-stage`` builds the kit
(``.carry``: wheels, data or the Python that makes it) and then runs this module, which

* writes ``.carry/stage.env``: the settings ``training/device_run.sh`` reads there (config, the
  model folder to resume, time box, data mix, seed), so the command sent is always the same;
* for a new model (no weights to resume) trains its value tokenizer here, on the kit's data, into
  ``.carry/tokenizer``: the machine then returns only weights, and the tokenizer is already here
  when the returned weights are checked (``python -m neural_debugger.evaluation.stage_check``);
* adds up what would travel (tracked and untracked-not-ignored files, the kit) and refuses a
  stage above the 64 MiB limit, printing the sizes and the exact ``device run`` call.

``python -m neural_debugger.training.gpu_stage prepare --config gpu-21m --resume models/X``
``... prepare --config gpu-21m --resume models/ndb-small --grow``: the stage first grows the
shipped weights into the larger shape there (:mod:`.grow`), so the tree carries only them.
``python -m neural_debugger.training.gpu_stage size``: the travelling size alone.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from neural_debugger.model_backend.llama import ModelConfig

from .grow import Shape, check_growth
from .shards import read_shards
from .tokenizer import DEFAULT_KIND, save_tokenizer, train_tokenizer
from .train import CONFIGS, config_by_name, earlier_stages

LIMIT_BYTES = 64 * 2**20  # what one `device run` call may carry, tree included
SHARD_BYTES = 16 * 2**20  # the largest file that comes back; model shards are at most this
RETURN_FILES = 8  # files that come back from $OUT at most
STAGE_SECONDS = 540  # one command: 9 minutes, start-up of the command included
# Seconds a stage's command spends outside the training time box: install, unpack, load and
# compile before it (41 and 45 s for stages 4 and 5 on an H200), and device_run.sh's reserve
# after it for stopping and collecting. A time box longer than what is left would be cut by
# the stage's own limit before the schedule's decay ends, returning an unannealed checkpoint.
SETUP_SECONDS = 45
COLLECT_SECONDS = 60
TOKENIZER_DOCUMENTS = 60_000  # trajectories a new model's tokenizer is trained on
# The data made beside the trainer (``ndb data --stream``). Stage 6 asked for 100,000 programs;
# its 7 generation workers made them in about 5 of its 10.5 minutes (330 programs a second),
# and from step 3,500 on the trainer drew only the rows it already held: its training loss kept
# falling while its validation loss rose from that very step. A stream now asks for what twice
# that rate makes in the time box; the stage stops it with the trainer.
STREAM_PROGRAMS_PER_SECOND = 660
# Generation and packing workers on the device's 16 cores, the trainer and the data run's main
# process keeping one each. Making a trajectory costs about 2.3 times what packing it does
# (``python -m neural_debugger.evaluation.bench_stream``; stream_bench.json), so 8 and 6 keep
# the packers ahead of the makers with a quarter to spare; stage 6's 7 and 8 idled packers.
GEN_WORKERS = 8
PACK_WORKERS = 6


def stream_programs(minutes: float) -> int:
    """Programs a stream of a ``minutes`` time box asks for (rounded up to 10,000)."""
    wanted = minutes * 60 * STREAM_PROGRAMS_PER_SECOND
    return int(-(-wanted // 10_000) * 10_000)


@dataclass(frozen=True)
class Sizes:
    """Bytes that travel with one ``device run`` call."""

    tracked: int
    untracked: int
    kit: int
    models: int  # of tracked + untracked: the model folders under models/

    @property
    def total(self) -> int:
        return self.tracked + self.untracked + self.kit


def _git_files(root: Path, *args: str) -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z", *args], cwd=root, capture_output=True, check=True
    ).stdout
    return [root / name for name in out.decode().split("\0") if name]


def _size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.is_file() and not p.is_symlink())


def travelling_sizes(root: Path, kit: Path) -> Sizes:
    """What a ``device run`` call from ``root`` carrying ``kit`` sends (README's limits)."""
    tracked = _git_files(root, "--cached")
    untracked = _git_files(root, "--others", "--exclude-standard")
    kit_files = [p for p in kit.rglob("*")] if kit.exists() else []
    models = [p for p in (*tracked, *untracked) if p.relative_to(root).parts[0] == "models"]
    return Sizes(_size(tracked), _size(untracked), _size(kit_files), _size(models))


def mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def shards_of(config_name: str) -> int:
    """Model shards a config's bf16 weights take (what comes back besides 4 other files)."""
    config = CONFIGS[config_name]
    d, f, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    parameters = layers * (4 * d * d + 3 * d * f + 2 * d) + config.vocab_size * d + d
    return -(-2 * parameters // SHARD_BYTES)


def train_stage_tokenizer(data: list[Path], out: Path, block_size: int, vocab_size: int) -> int:
    """A new model's value tokenizer from the first trajectories of ``data``; its size."""
    texts: list[str] = []
    for folder in data:
        for record in read_shards(folder):
            texts.append(record["text"])
            if len(texts) >= TOKENIZER_DOCUMENTS:
                break
    tokenizer = train_tokenizer(texts, vocab_size, DEFAULT_KIND)
    save_tokenizer(tokenizer, out, block_size)
    return tokenizer.get_vocab_size()


def travels(path: Path, root: Path, kit: Path) -> bool:
    """Whether a folder goes with a ``device run`` call: in the kit, or in the repository and
    not ignored by git."""
    path = path.resolve()
    if path.is_relative_to(kit.resolve()):
        return True
    if not path.is_relative_to(root):
        return False
    ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=root, check=False)
    return ignored.returncode != 0


def relative(path: Path, root: Path) -> str:
    """``path`` as ``device_run.sh`` finds it from the repository root (absolute if outside)."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def stage_env(settings: dict[str, str]) -> str:
    """``stage.env``: each setting applied only where the caller has not set it."""
    lines = [f"# written by `make gpu-stage` on {time.strftime('%Y-%m-%d %H:%M:%S %Z')}"]
    lines += [f': "${{{key}={value}}}"' for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def read_stage_env(path: Path) -> dict[str, str]:
    """The settings a ``stage.env`` names (for the check of the returned weights)."""
    settings = {}
    for line in path.read_text().splitlines():
        if line.startswith(': "${') and line.endswith('}"') and "=" in line:
            key, value = line[len(': "${') : -len('}"')].split("=", 1)
            settings[key] = value
    return settings


def prepare(args: argparse.Namespace) -> int:
    root, kit = args.root.resolve(), args.kit
    kit = kit if kit.is_absolute() else root / kit
    try:
        config = config_by_name(args.config)
    except ValueError as err:
        print(f"gpu-stage: error: {err}")
        return 2
    if not (kit / "data.tar.xz").exists() and not (kit / "python.tar.xz").exists():
        print(
            f"gpu-stage: error: {kit} holds neither data.tar.xz nor python.tar.xz; run "
            "`make device-stream-kit` or `make device-data-kit` (or `make gpu-stage`)"
        )
        return 2
    longest = (args.stage_seconds - SETUP_SECONDS - COLLECT_SECONDS) / 60
    if args.minutes > longest:
        print(
            f"gpu-stage: error: {args.minutes:g} minutes of training do not fit a "
            f"{args.stage_seconds} s command ({SETUP_SECONDS} s set-up, {COLLECT_SECONDS} s to "
            f"collect): at most {longest:.2f} minutes, or a longer --stage-seconds"
        )
        return 2
    settings = {"CONFIG": config.name}
    stage = 1
    if args.resume:
        resume = args.resume if args.resume.is_absolute() else root / args.resume
        if not (resume / "config.json").exists() or not (resume / "tokenizer.json").exists():
            print(
                f"gpu-stage: error: {args.resume} is not a model folder (config.json, "
                "tokenizer.json)"
            )
            return 2
        if not travels(resume, root, kit):
            print(
                f"gpu-stage: error: {args.resume} would not travel (outside the repository, "
                "or ignored by git): commit it under models/ or put it in the kit"
            )
            return 2
        stage = len(earlier_stages(resume)) + 1
        shutil.rmtree(kit / "tokenizer", ignore_errors=True)  # a new model's, from before
        shape = json.loads((resume / "config.json").read_text())
        if args.grow:
            try:
                check_growth(ModelConfig.from_hf(shape), Shape.of(config))
            except ValueError as err:
                print(f"gpu-stage: error: {args.resume} cannot grow into {config.name}: {err}")
                return 2
            print(
                f"gpu-stage: note: {args.resume} grows into {config.name} "
                f"({Shape.of(config)}) before the stage's first step"
            )
        elif (shape["hidden_size"], shape["num_hidden_layers"]) != (
            config.hidden_size,
            config.num_hidden_layers,
        ):
            print(
                f"gpu-stage: note: {args.resume} keeps its shape (hidden {shape['hidden_size']}, "
                f"{shape['num_hidden_layers']} layers); {config.name} gives batch and schedule"
            )
        settings["RESUME"] = relative(resume, root)
        lr = args.lr or config.lr / 2  # a continued stage warms up again to a lower peak
    else:
        if args.grow:
            print("gpu-stage: error: --grow needs --resume: the model folder to grow")
            return 2
        if not args.tokenizer_data:
            print("gpu-stage: error: a new model (no --resume) needs --tokenizer-data")
            return 2
        size = train_stage_tokenizer(
            args.tokenizer_data, kit / "tokenizer", config.block_size, config.vocab_size
        )
        print(f"gpu-stage: a new {DEFAULT_KIND} tokenizer ({size} entries) in {kit / 'tokenizer'}")
        settings["RESUME"] = ""
        settings["TOKENIZER"] = relative(kit / "tokenizer", root)
        lr = args.lr or config.lr
    streaming = (kit / "python.tar.xz").exists()
    wanted = stream_programs(args.minutes) if args.stream_programs is None else args.stream_programs
    settings["GROW"] = "1" if args.grow else "0"
    settings |= {
        "MINUTES": f"{args.minutes:g}",
        "STAGE_SECONDS": str(args.stage_seconds),
        "LR": f"{lr:g}",
        "STEPS": "1000000",  # the time box ends the stage; the WSD schedule follows the clock
        "SEED": str(args.seed if args.seed is not None else 20_000 + 1_000 * stage),
        "MIX": args.mix,
        "STREAM_PROGRAMS": str(wanted if streaming else 0),
        "STREAM_ROWS": str(args.stream_rows),
        "GEN_WORKERS": str(GEN_WORKERS),
        "PACK_WORKERS": str(PACK_WORKERS),
    }
    (kit / "stage.env").write_text(stage_env(settings))
    shards = len(list(resume.glob("model*.safetensors"))) if args.resume and not args.grow else None
    shards = shards or shards_of(config.name)
    sizes = travelling_sizes(root, kit)
    print(f"gpu-stage: stage {stage}, settings in {kit / 'stage.env'}:")
    for key, value in settings.items():
        print(f"  {key}={value}")
    report(sizes, shards)
    if sizes.total > LIMIT_BYTES:
        print(
            f"gpu-stage: error: {mib(sizes.total)} would travel, over the {mib(LIMIT_BYTES)} "
            "limit: carry less data (SEED_SHARDS, DATA_KIT) or the carried data instead of "
            "the data Python (STAGE_DATA=carried), or keep one model folder in models/"
        )
        return 3
    print(
        '\nSend (device run): command `bash training/device_run.sh run`, carry [".carry"], '
        f"timeout_s {STAGE_SECONDS + 30}.\nThen here: make gpu-stage-eval RETURNED=<files_at>"
    )
    return 0


def report(sizes: Sizes, shards: int | None = None) -> None:
    print(
        f"travelling: {mib(sizes.total)} of {mib(LIMIT_BYTES)} (tracked {mib(sizes.tracked)}, "
        f"of it models/ {mib(sizes.models)}; untracked {mib(sizes.untracked)}; "
        f"kit {mib(sizes.kit)})"
    )
    if shards is not None:
        back = shards + 4  # index, config.json, run.json, logs.tar.gz
        print(f"coming back: {shards} weight shards + 4 files = {back} of {RETURN_FILES} files")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root")
    parser.add_argument("--kit", type=Path, default=Path(".carry"), help="the carried folder")
    commands = parser.add_subparsers(dest="command", required=True)
    prep = commands.add_parser("prepare", help="write stage.env (and a new tokenizer), size it")
    prep.add_argument("--config", default="gpu-21m", help=", ".join(CONFIGS))
    prep.add_argument("--resume", type=Path, default=None, help="model folder to continue")
    prep.add_argument(
        "--tokenizer-data", type=Path, nargs="*", default=[], help="shards for a new tokenizer"
    )
    prep.add_argument(
        "--grow",
        action="store_true",
        help="grow --resume into --config's wider and deeper shape first (training/grow.py)",
    )
    prep.add_argument("--minutes", type=float, default=7.0, help="the training time box")
    prep.add_argument(
        "--stage-seconds", type=int, default=STAGE_SECONDS, help="the whole command's limit"
    )
    prep.add_argument("--lr", type=float, default=None, help="peak rate (default: the config's)")
    prep.add_argument("--seed", type=int, default=None, help="data seed (default: by stage)")
    prep.add_argument(
        "--mix",
        default="",
        help="what `ndb data --mix` takes, for data made there (default: training/mix.toml)",
    )
    prep.add_argument(
        "--stream-programs",
        type=int,
        default=None,
        help="programs the stream asks for (default: what fits the time box, stream_programs)",
    )
    prep.add_argument("--stream-rows", type=int, default=250_000)
    commands.add_parser("size", help="print what would travel")
    args = parser.parse_args(argv)
    if args.command == "size":
        root = args.root.resolve()
        sizes = travelling_sizes(root, args.kit if args.kit.is_absolute() else root / args.kit)
        report(sizes)
        return 0 if sizes.total <= LIMIT_BYTES else 3
    if args.resume is not None and str(args.resume) in ("", "."):
        args.resume = None
    return prepare(args)


if __name__ == "__main__":
    sys.exit(main())
