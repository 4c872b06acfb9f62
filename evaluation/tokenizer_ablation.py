"""The tokenizer ablation: one model size, the same data and token count, old vs new tokenizer.

``python -m neural_debugger.evaluation.tokenizer_ablation --data DIR --config C --steps N``
trains two models of config ``C`` on ``DIR/train`` (validation ``DIR/heldout``), one with the
shipped model's kind of tokenizer (``bpe``) and one with the value tokenizer (``value``), each for
``N`` steps of the config's batch, so both see the same number of tokens. Then it measures both
with the measure of ``ndb eval next-state`` (exact match per action, ``--constrained``: under the
grammar, as debug sessions decode) on every ``--heldout`` folder (default ``DIR/heldout``) and
writes ``OUT/ablation.json`` and a side-by-side table.

Equal tokens is not equal text: the value tokenizer spells values out, so the same number of
tokens covers fewer trajectories; the report gives tokens per held-out trajectory for each.
At tiny scale (``--config tiny``, minutes on a CPU) the numbers are only a smoke test of the
harness; the comparison that counts runs on a GPU (``gpu-small`` or a sweep config, thousands of
steps; docs/training.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from neural_debugger.model_backend.llama import load_pretrained
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.training.shards import read_shards
from neural_debugger.training.train import config_by_name, train

from .next_state import evaluate


def tokens_per_trajectory(model_dir: Path, heldout: Path) -> float:
    """Mean tokens of one held-out trajectory under a model's tokenizer."""
    tokenizer = load_tokenizer(model_dir)
    texts = [record["text"] for record in read_shards(heldout)]
    encodings = tokenizer.encode_batch(texts, add_special_tokens=False)
    return statistics.mean(len(e.ids) for e in encodings)


def run_ablation(
    data: Path,
    out: Path,
    config_name: str,
    steps: int,
    heldout: list[Path],
    per_action: int,
    constrained: bool = True,
    device: str | None = None,
    workers: int = 1,
    log=print,
) -> dict[str, Any]:
    """Train one model per tokenizer kind and measure each; the report as a dict."""
    report: dict[str, Any] = {
        "config": config_name,
        "steps": steps,
        "data": str(data),
        "per_action": per_action,
        "decoding": "constrained" if constrained else "unconstrained greedy",
        "models": {},
    }
    for kind in ("bpe", "value"):  # the shipped model's kind, then the new one
        config = config_by_name(
            config_name, max_steps=steps, tokenizer=kind, eval_every=max(steps // 4, 1)
        )
        folder = out / kind
        log(f"ablation: training {config_name} with the {kind} tokenizer for {steps} steps")
        state = train(
            config, data / "train", data / "heldout", folder, device=device, workers=workers,
            log=lambda line: None,
        )  # fmt: skip
        model = load_pretrained(folder)
        entry: dict[str, Any] = {
            "folder": str(folder),
            "parameters": model.num_parameters(),
            "vocab_size": model.config.vocab_size,
            "tokens_seen": state.tokens_seen,
            "train_seconds": round(state.train_seconds, 1),
            "val_loss_per_token": state.history[-1]["val_loss"],
            "heldout": {},
        }
        for folder_in in heldout:
            log(f"ablation: measuring the {kind} model on {folder_in}")
            results = evaluate(
                folder, folder_in, per_action, device=device or "cpu", constrained=constrained
            )
            entry["heldout"][str(folder_in)] = {
                "tokens_per_trajectory": round(tokens_per_trajectory(folder, folder_in), 1),
                "results": results["results"],
            }
        report["models"][kind] = entry
        # written after each model: a run stopped by its time limit keeps what it measured
        out.mkdir(parents=True, exist_ok=True)
        (out / "ablation.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def format_report(report: dict[str, Any]) -> str:
    bpe, value = report["models"]["bpe"], report["models"]["value"]
    lines = [
        f"config {report['config']}, {report['steps']} steps, {bpe['tokens_seen']:,} tokens "
        f"each; {report['decoding']} decoding, {report['per_action']} items per action",
        f"parameters: bpe {bpe['parameters']:,} (vocabulary {bpe['vocab_size']}), value "
        f"{value['parameters']:,} (vocabulary {value['vocab_size']})",
    ]
    for heldout, old in bpe["heldout"].items():
        new = value["heldout"][heldout]
        lines += [
            "",
            f"{heldout}: tokens per trajectory bpe {old['tokens_per_trajectory']}, "
            f"value {new['tokens_per_trajectory']}",
            "| action | n | bpe | value |",
            "|---|---|---|---|",
        ]
        for action, row in old["results"].items():
            other = new["results"].get(action, {}).get("exact", {}).get("rate")
            cell = f"{other * 100:.1f}%" if other is not None else "–"
            lines.append(
                f"| {action} | {row['exact']['n']} | {row['exact']['rate'] * 100:.1f}% | {cell} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="folder with train/, heldout/")
    parser.add_argument("--out", type=Path, default=Path("runs/ablation"))
    parser.add_argument("--config", default="tiny", help="the model size of both runs")
    parser.add_argument("--steps", type=int, required=True, help="steps of each run")
    parser.add_argument(
        "--heldout", type=Path, action="append", default=None,
        help="held-out shards to measure on (repeatable; default DATA/heldout)",
    )  # fmt: skip
    parser.add_argument("--per-action", type=int, default=40)
    parser.add_argument(
        "--unconstrained", action="store_true", help="greedy without the grammar (the raw model)"
    )
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    parser.add_argument("--workers", type=int, default=1, help="processes that pack the data")
    args = parser.parse_args(argv)
    try:
        config_by_name(args.config)
    except ValueError as err:
        print(f"tokenizer-ablation: error: {err}")
        return 2
    heldout = args.heldout or [args.data / "heldout"]
    for folder in [args.data / "train", *heldout]:
        if not any(folder.glob("shard-*.jsonl")):
            print(f"tokenizer-ablation: error: no shards in {folder}")
            return 2
    report = run_ablation(
        args.data, args.out, args.config, args.steps, heldout, args.per_action,
        constrained=not args.unconstrained, device=args.device, workers=args.workers,
    )  # fmt: skip
    command = " ".join(["python -m neural_debugger.evaluation.tokenizer_ablation", *sys.argv[1:]])
    report["command"] = command if argv is None else " ".join(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ablation.json").write_text(json.dumps(report, indent=2) + "\n")
    print(format_report(report))
    print(f"written: {args.out / 'ablation.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
