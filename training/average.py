"""Average the weights of model folders of one shape: checkpoints of one model along its stages.

Why: each training stage anneals its learning rate to zero on different data, and the stages do
not agree on every action (stage 2 and stage 3 of the shipped model trade step_over against
breakpoint). The mean of their weights is a candidate model that costs no training; whether it
is better is for ``ndb eval next-state`` on held-out data to say, on items not used to pick it.

Usage: ``python -m neural_debugger.training.average OUT MODEL MODEL [MODEL ...]``. ``OUT`` gets
the mean in the first model's dtype and sharding rules, the tokenizer files of the first model,
and the last model's ``run.json`` with ``averaged_from`` naming the inputs.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch

from neural_debugger.model_backend.llama import load_pretrained, save_pretrained

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


def _shape(folder: Path) -> dict[str, object]:
    """What must agree for weights to be averaged: the config without its dtype."""
    config = json.loads((folder / "config.json").read_text())
    config.pop("torch_dtype", None)
    config.pop("dtype", None)
    return config


def average_models(out: Path, models: list[Path]) -> Path:
    """Write the element-wise mean of ``models``' weights to ``out``; returns ``out``."""
    if len(models) < 2:
        raise ValueError("averaging needs at least two model folders")
    if out.resolve() in {m.resolve() for m in models}:
        raise ValueError(f"{out} is one of the inputs; write the average elsewhere")
    first = _shape(models[0])
    for other in models[1:]:
        if _shape(other) != first:
            raise ValueError(f"{other} has another shape or tokenizer than {models[0]}")
    dtype_name = json.loads((models[0] / "config.json").read_text()).get("torch_dtype", "bfloat16")
    model = load_pretrained(models[0])
    total = {k: v.clone() for k, v in model.state_dict().items()}
    for other in models[1:]:
        for name, tensor in load_pretrained(other).state_dict().items():
            total[name] += tensor
    model.load_state_dict({k: v / len(models) for k, v in total.items()})
    out.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:  # before the weights: config.json records the tokenizer's print
        if (models[0] / name).exists():
            shutil.copy(models[0] / name, out / name)
    save_pretrained(model, out, dtype=getattr(torch, dtype_name))
    run_path = models[-1] / "run.json"
    if run_path.exists():
        run = json.loads(run_path.read_text())
        run["averaged_from"] = [str(m) for m in models]
        (out / "run.json").write_text(json.dumps(run, indent=2) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the averaged model")
    parser.add_argument("models", type=Path, nargs="+", help="model folders of one shape")
    args = parser.parse_args(argv)
    try:
        average_models(args.out, args.models)
    except (ValueError, FileNotFoundError) as err:
        parser.error(str(err))
    print(f"the mean of {len(args.models)} models in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
