"""Check the weights a GPU stage brought back, here, before anyone commits them.

``make gpu-stage-eval RETURNED=DIR`` (``python -m neural_debugger.evaluation.stage_check DIR``):
``DIR`` is what came back from ``training/device_run.sh`` (``model/`` with the bf16 shards, their
index, ``config.json`` and ``run.json``; ``logs.tar.gz``). A lent machine returns at most 8
files, so the tokenizer stays here: this command

1. assembles a whole model folder in ``--out`` (the returned files, the tokenizer of the model
   the stage resumed or of the kit's new tokenizer, per ``.carry/stage.env``, and the
   generation config), and unpacks the logs beside it;
2. loads it as debug sessions do (the embedded engine refuses a tokenizer the weights were not
   trained with);
3. measures next-state exact match per action under the grammar on held-out shards, for the
   returned model and the one it continues (``--baseline``, default the resumed folder), and
   writes both with the stage's record (steps, tokens, validation loss) to
   ``--out/stage_check.json``.

It prints the comparison and the command that would commit the folder; it commits nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tarfile
from pathlib import Path
from typing import Any

from neural_debugger.model_backend.local import load_model
from neural_debugger.training.gpu_stage import read_stage_env

from .next_state import evaluate

MODEL_FILES = ("config.json", "run.json", "model.safetensors.index.json")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


def tokenizer_home(root: Path, kit: Path) -> tuple[Path, Path | None]:
    """(folder holding the stage's tokenizer, the model folder it resumed or ``None``)."""
    env = kit / "stage.env"
    if not env.exists():
        raise FileNotFoundError(f"no {env}: which stage came back? (make gpu-stage writes it)")
    settings = read_stage_env(env)
    resume = settings.get("RESUME") or None
    home = resume or settings.get("TOKENIZER")
    if not home:
        raise ValueError(f"{env} names neither RESUME nor TOKENIZER")
    return root / home, (root / resume if resume else None)  # an absolute path stays whole


def assemble(returned: Path, home: Path, out: Path) -> Path:
    """The model folder ``out/model``: returned weights and records, ``home``'s tokenizer."""
    source = returned / "model"
    shards = sorted(source.glob("model*.safetensors"))
    if not shards or not (source / "config.json").exists():
        raise FileNotFoundError(f"{source} holds no weights and config.json: nothing came back")
    model = out / "model"
    if model.exists():
        shutil.rmtree(model)
    model.mkdir(parents=True)
    for path in [*shards, *(source / name for name in MODEL_FILES)]:
        if path.exists():
            shutil.copy(path, model / path.name)
    for name in TOKENIZER_FILES:
        shutil.copy(home / name, model / name)
    config = json.loads((model / "config.json").read_text())
    generation = {
        "bos_token_id": config["bos_token_id"],
        "eos_token_id": config["eos_token_id"],
        "do_sample": False,
    }
    (model / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
    logs = returned / "logs.tar.gz"
    if logs.exists():
        with tarfile.open(logs) as archive:
            archive.extractall(out / "logs", filter="data")
    return model


def stage_record(model: Path) -> dict[str, Any]:
    """Steps, tokens, seconds and the last validation loss of the returned run."""
    run = json.loads((model / "run.json").read_text())
    state = run["state"]
    history = state.get("history") or [{}]
    return {
        "config": run["config"]["name"],
        "tokenizer": run["config"].get("tokenizer", "bpe"),
        "schedule": run["config"].get("schedule", "cosine"),
        "steps": state["step"],
        "tokens": state["tokens_seen"],
        "train_seconds": round(state["train_seconds"], 1),
        "val_loss": history[-1].get("val_loss"),
        "earlier_stages": len(state.get("earlier", [])),
        "tokens_in_all": state["tokens_seen"] + sum(s["tokens"] for s in state.get("earlier", [])),
    }


def side_by_side(new: dict[str, Any], old: dict[str, Any] | None) -> str:
    lines = ["| action | n | returned | before |", "|---|---|---|---|"]
    for action, row in new["results"].items():
        before = "–"
        if old is not None and action in old["results"]:
            before = f"{old['results'][action]['exact']['rate'] * 100:.1f}%"
        rate = row["exact"]["rate"] * 100
        lines.append(f"| {action} | {row['exact']['n']} | {rate:.1f}% | {before} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("returned", type=Path, help="the folder that came back ($OUT)")
    parser.add_argument("--kit", type=Path, default=Path(".carry"), help="the stage's kit")
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root")
    parser.add_argument("--data", type=Path, required=True, help="held-out shards")
    parser.add_argument("--out", type=Path, default=Path("runs/stage"), help="where to assemble")
    parser.add_argument("--per-action", type=int, default=40)
    parser.add_argument("--baseline", type=Path, default=None, help="model to compare with")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    kit = args.kit if args.kit.is_absolute() else root / args.kit
    try:
        home, resumed = tokenizer_home(root, kit)
        model = assemble(args.returned, home, args.out)
        load_model(model.resolve())
    except (FileNotFoundError, ValueError) as err:
        print(f"stage-check: error: {err}")
        return 2
    except Exception as err:  # the engine's own errors: a model that would not load in a session
        print(f"stage-check: error: the returned model does not load: {err}")
        return 2
    record = stage_record(model)
    print(f"stage-check: {model} loads; {json.dumps(record)}")
    new = evaluate(model, args.data, args.per_action, constrained=True)
    baseline = args.baseline or resumed
    old = evaluate(baseline, args.data, args.per_action, constrained=True) if baseline else None
    result = {"record": record, "returned": new, "baseline": old}
    (args.out / "stage_check.json").write_text(json.dumps(result, indent=2) + "\n")
    print(side_by_side(new, old))
    target = resumed if resumed else Path("models/NAME")
    print(
        f"\nwritten: {args.out / 'stage_check.json'}. If it is better, commit it with:\n"
        f"  rm -f {target}/model*.safetensors* && cp {model}/* {target}/ && git add -A {target}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
