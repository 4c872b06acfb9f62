"""``ndb eval``: measure the model."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction) -> None:
    ev = commands.add_parser("eval", help="measure the model")
    tasks = ev.add_subparsers(dest="task", required=True)
    ns = tasks.add_parser(
        "next-state",
        help="next-state exact match per action and per state component",
        description="Cut held-out trajectories after each action, let the model write the next "
        "state greedily, and compare with the real run.",
    )
    ns.add_argument("--model", type=Path, default=Path("models/ndb-small"))
    ns.add_argument("--data", type=Path, required=True, help="held-out shards folder")
    ns.add_argument("--per-action", type=int, default=100)
    ns.add_argument("--seed", type=int, default=0)
    ns.add_argument("--out", type=Path, default=None, help="write the results as JSON")
    ns.add_argument(
        "--constrained",
        action="store_true",
        help="decode under the grammar with the embedded engine, as debug sessions do",
    )
    ns.set_defaults(run=run_next_state)

    cx = tasks.add_parser(
        "cruxeval",
        help="CruxEval pass@1 with one debugger action, scored by re-execution",
        description="Predict CruxEval outputs (step_return or breakpoint at the return line) or "
        "inputs (inv_step_call) with one action from the entry state; a prediction passes when "
        "f(input) == output holds when run in a sandboxed subprocess.",
    )
    cx.add_argument("--task", choices=["output", "input"], required=True)
    cx.add_argument(
        "--action", choices=["step_return", "breakpoint", "inv_step_call"], required=True
    )
    cx.add_argument(
        "--backend",
        choices=["local", "baseline"],
        default="local",
        help="local: the embedded model; baseline: predict the input unchanged",
    )
    cx.add_argument("--model", type=Path, default=Path("models/ndb-small"))
    cx.add_argument(
        "--data",
        type=Path,
        default=None,
        help="JSONL with code, input, output, id (default: shared CruxEval)",
    )
    cx.add_argument("--limit", type=int, default=None)
    cx.add_argument(
        "--constrained",
        action="store_true",
        help="decode under the grammar with the embedded engine, as debug sessions do",
    )
    cx.add_argument("--out", type=Path, default=None)
    cx.set_defaults(run=run_cruxeval)


def run_next_state(args: argparse.Namespace) -> int:
    from .next_state import evaluate, format_table

    results = evaluate(
        args.model, args.data, args.per_action, args.seed, constrained=args.constrained
    )
    print(format_table(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def run_cruxeval(args: argparse.Namespace) -> int:
    from neural_debugger.paths import cruxeval_path

    from . import cruxeval

    data = args.data or cruxeval_path()
    if not data.exists():
        print(f"ndb eval cruxeval: error: no data file {data}")
        return 2
    items = cruxeval.load(data, args.limit)
    predict = None
    if args.backend == "local" and args.constrained:
        predict = cruxeval.constrained_predictor(args.model)
    elif args.backend == "local":
        from neural_debugger.model_backend.generate import greedy_state
        from neural_debugger.training.model import load_pretrained
        from neural_debugger.training.tokenizer import load_tokenizer

        model, tokenizer = load_pretrained(args.model), load_tokenizer(args.model)

        def predict(prompt: str) -> str:
            return greedy_state(model, tokenizer, prompt)

    try:
        results = cruxeval.run(items, args.task, args.action, predict, args.backend)
    except ValueError as err:
        print(f"ndb eval cruxeval: error: {err}")
        return 2
    print(json.dumps({k: v for k, v in results.items() if k != "records"}))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0
