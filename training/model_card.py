"""Write a model folder's README.md from what the run recorded, so every figure has a source.

``python -m neural_debugger.training.model_card MODEL_DIR --data DATA_DIR [--data ...] --eval
EVAL.json --hardware "..."`` reads ``run.json`` (config, steps, tokens, time, and the earlier
stages a resumed run continues), the data folders' ``stats.json`` files and a next-state
evaluation, and writes ``MODEL_DIR/README.md``. The held-out data is the first folder's.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from neural_debugger.model_backend.llama import ModelConfig


def _table(results: dict[str, Any]) -> list[str]:
    columns = ("exact", "event", "source", "locals", "value")
    lines = [
        "| action | n | " + " | ".join(columns) + " |",
        "|---|---|" + "---|" * len(columns),
    ]
    for action, row in results["results"].items():
        cells = [f"{row[c]['rate'] * 100:.1f}%" if c in row else "–" for c in columns]
        lines.append(f"| {action} | {row['exact']['n']} | " + " | ".join(cells) + " |")
    return lines


def _schedule(train_config: dict[str, Any]) -> str:
    """The last stage's schedule in words (runs before the choice existed were cosine)."""
    if train_config.get("schedule", "cosine") == "wsd":
        share = train_config.get("decay_fraction", 0.2)
        return f"warmup-stable-decay (linear to zero over the last {share:.0%})"
    return "cosine to zero"


def _data_stats(data_dirs: list[Path]) -> dict[str, Any]:
    """The train statistics of one or more data folders, added up."""
    total: dict[str, Any] = {}
    for data_dir in data_dirs:
        stats = json.loads((data_dir / "train" / "stats.json").read_text())
        for key in ("programs", "trajectories", "states", "dropped_cruxeval"):
            total[key] = total.get(key, 0) + stats.get(key, 0)
        for key in ("directions", "origins", "actions"):
            merged = total.setdefault(key, {})
            for name, count in stats.get(key, {}).items():
                merged[name] = merged.get(name, 0) + count
    return total


def _streamed(state: dict[str, Any]) -> list[str]:
    """Lines on the data each stage took while it trained (``ndb train --stream``)."""
    this = {"streamed": state.get("streamed") or {}}
    lines = []
    for number, stage in enumerate([*state.get("earlier", []), this], 1):
        streamed = stage.get("streamed") or {}
        if not streamed:
            continue
        made = streamed.get("data", {})
        lines.append(
            f"- Stage {number} also trained on data made while it trained: "
            f"{streamed['shards']:,} shards taken ({streamed['documents']:,} documents, "
            f"{streamed['target_tokens']:,} target tokens) of {made.get('programs', 0):,} "
            f"programs made (origins {json.dumps(made.get('origins', {}))}); dropped as CruxEval "
            f"matches: {made.get('dropped_cruxeval', 0)}, as held-out or evaluation programs: "
            f"{made.get('dropped_seen', 0):,}"
            + (
                f"; the data run ended at step {streamed['dry_from_step']:,}, after which the "
                "stage drew only rows it already held"
                if "dry_from_step" in streamed
                else ""
            )
        )
    return lines


def _stages(state: dict[str, Any], train_config: dict[str, Any], hardware: str) -> list[str]:
    """One line per training stage (earlier runs this one resumed, then this run), and totals."""
    this = {
        "config": train_config["name"],
        "lr": train_config["lr"],
        "steps": state["step"],
        "tokens": state["tokens_seen"],
        "seconds": state["train_seconds"],
        "grown": state.get("grown"),
    }
    stages = [*state.get("earlier", []), this]
    lines = []
    for number, stage in enumerate(stages, 1):
        resumed = " (resumed from the weights above)" if number > 1 else ""
        if stage.get("grown"):
            grown = stage["grown"]
            resumed = (
                f" (resumed from the weights above, grown from {grown['parameters_from']:,} "
                f"to {grown['parameters_to']:,} parameters first: training/grow.py)"
            )
        lines.append(
            f"- Stage {number}: config `{stage['config']}`, peak lr {stage['lr']}, "
            f"{stage['steps']:,} steps, {stage['tokens']:,} tokens, "
            f"{stage['seconds'] / 60:.1f} min{resumed}"
        )
    tokens = sum(stage["tokens"] for stage in stages)
    minutes = sum(stage["seconds"] for stage in stages) / 60
    lines.append(f"- In all: {tokens:,} tokens seen in {minutes:.1f} min on {hardware}")
    return lines


def render(
    model_dir: Path,
    data_dirs: list[Path],
    evaluation: dict[str, Any] | None,
    hardware: str,
    notes: list[str],
) -> str:
    run = json.loads((model_dir / "run.json").read_text())
    config = ModelConfig.from_hf(json.loads((model_dir / "config.json").read_text()))
    state, train_config = run["state"], run["config"]
    params = (
        config.vocab_size * config.hidden_size * (1 if config.tie_word_embeddings else 2)
        + config.num_hidden_layers
        * (
            2 * config.hidden_size * config.hidden_size
            + 2 * config.hidden_size * config.num_key_value_heads * config.head_dim
            + 3 * config.hidden_size * config.intermediate_size
            + 2 * config.hidden_size
        )
        + config.hidden_size
    )
    train_stats = _data_stats(data_dirs)
    lines = [
        f"# {model_dir.name}",
        "",
        "The embedded model of the neural debugger: a Llama-architecture decoder trained from "
        "scratch on execution trajectories of generated Python programs, standard-library and "
        "package functions and calls sampled from test suites, in the debugger language (see the "
        "repository README).",
        "",
        "## Model",
        "",
        f"- Parameters: {params:,} ({config.num_hidden_layers} layers, hidden "
        f"{config.hidden_size}, {config.num_attention_heads} heads, MLP "
        f"{config.intermediate_size}, vocabulary {config.vocab_size}, tied embeddings)",
        f"- Context: {config.max_position_embeddings} tokens; weights: bf16 safetensors",
        "- Format: HF `LlamaForCausalLM` (`config.json`, safetensors, `tokenizer.json`), loadable "
        "by transformers and vLLM unchanged",
        "",
        "## Training",
        "",
        f"- Steps of {train_config['batch_size']} × {train_config['block_size']} tokens, AdamW "
        f"(wd {train_config['weight_decay']}), {train_config['warmup_steps']} warmup steps, "
        f"{_schedule(train_config)} in each stage; loss on state tokens only",
        f"- Tokenizer: {train_config.get('tokenizer', 'bpe')} kind (training/tokenizer.py)",
        *_stages(state, train_config, hardware),
        f"- Final validation loss: {state['history'][-1]['val_loss']:.4f}"
        if state["history"]
        else "- No validation recorded",
        "",
        "## Data",
        "",
        f"- Carried data: {train_stats['programs']:,} programs, "
        f"{train_stats['trajectories']:,} trajectories "
        f"(forward {train_stats['directions'].get('forward', 0):,}, inverse "
        f"{train_stats['directions'].get('inverse', 0):,}), {train_stats['states']:,} states",
        f"- Origins: {json.dumps(train_stats['origins'])}",
        f"- Dropped because a function matched a CruxEval function after normalisation: "
        f"{train_stats['dropped_cruxeval']}",
        f"- Actions: {json.dumps(train_stats['actions'])}",
        *_streamed(state),
    ]
    if evaluation is not None:
        lines += [
            "",
            f"## Next-state exact match (held-out programs, greedy, "
            f"{evaluation.get('decoding', 'unconstrained')})",
            "",
            *_table(evaluation),
            "",
            "Made by `"
            + evaluation.get(
                "command",
                f"ndb eval next-state --model {model_dir} --data {data_dirs[0] / 'heldout'} "
                f"--per-action {evaluation['per_action']}",
            )
            + "`.",
        ]
    if notes:
        lines += ["", "## Notes", "", *[f"- {note}" for note in notes]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", type=Path)
    parser.add_argument(
        "--data", type=Path, action="append", required=True, help="a data folder (repeat)"
    )
    parser.add_argument("--eval", type=Path, default=None)
    parser.add_argument("--hardware", required=True)
    parser.add_argument("--note", action="append", default=[])
    args = parser.parse_args(argv)
    evaluation = json.loads(args.eval.read_text()) if args.eval else None
    text = render(args.model_dir, args.data, evaluation, args.hardware, args.note)
    (args.model_dir / "README.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
