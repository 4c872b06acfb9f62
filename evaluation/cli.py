"""``ndb eval``: measure the model."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

# The temperature --samples draws at when none is given (next-state and CruxEval alike).
SAMPLING_TEMPERATURE = 0.8


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
    ns.add_argument(
        "--origins",
        default=None,
        help="only trajectories of these origins, comma-separated "
        "(generated, stdlib, package, repo); default all",
    )
    ns.add_argument(
        "--unseen",
        type=Path,
        default=None,
        help="training shards: leave out real code whose function appears there (held out by "
        "function, not by program)",
    )
    ns.add_argument(
        "--long",
        action="store_true",
        help="only predictions whose history outgrows the model's window, so the session drops "
        "its oldest states (decoded by the embedded engine, as with --constrained)",
    )
    ns.add_argument(
        "--check",
        type=int,
        default=1,
        help="steps back keep the best of K candidates by the forward model's check "
        "(decoded by the embedded engine, as with --constrained)",
    )
    ns.add_argument(
        "--stepped",
        type=int,
        default=0,
        metavar="N",
        help="reach breakpoints as a debug session does: up to N steps into until one stands "
        "on the line, then one jump (decoded by the embedded engine, as with --constrained)",
    )
    ns.add_argument(
        "--samples",
        type=int,
        default=1,
        metavar="K",
        help="keep the majority of K states drawn per item, the paper's vote (decoded by the "
        "embedded engine, as with --constrained)",
    )
    ns.add_argument(
        "--temperature",
        type=float,
        default=None,
        help=f"sampling temperature with --samples above 1 (default {SAMPLING_TEMPERATURE:g})",
    )
    ns.add_argument(
        "--actions",
        default=None,
        help="only these actions, comma-separated (the same items as a run over all actions)",
    )
    ns.add_argument(
        "--quantize",
        choices=["auto", "none", "fp16", "int8"],
        default=None,
        help="the embedded engine's linear layers: fp16 or int8 weights on the CPU, none "
        "(float32), auto (fp16 where the CPU kernels exist) (default: $NDB_QUANTIZE, else "
        "auto; decoded by the embedded engine, as with --constrained)",
    )
    ns.add_argument(
        "--step",
        choices=["auto", "native", "torch"],
        default=None,
        help="what runs the embedded engine's passes over a few tokens: native (C, float16 "
        "weights), torch, auto (native where it can run) (default: $NDB_STEP, else auto; "
        "decoded by the embedded engine, as with --constrained)",
    )
    ns.set_defaults(run=run_next_state)

    hz = tasks.add_parser(
        "horizon",
        help="next-state accuracy against jump distance (the paper's horizon)",
        description="Trace fresh generated programs (never training data with --exclude), ask "
        "each jump action (step_over, step_return, breakpoint, inv_step_over, inv_step_call) "
        "from states along sampled trajectories, and report exact match per action and "
        "distance bucket (events moved through).",
    )
    hz.add_argument("--model", type=Path, default=Path("models/ndb-small"))
    hz.add_argument("--programs", type=int, default=200, help="generated programs to draw from")
    hz.add_argument("--seed", type=int, default=7001, help="program generator and sampling seed")
    hz.add_argument("--per-bucket", type=int, default=12, help="items per action and bucket")
    hz.add_argument(
        "--exclude", type=Path, default=None, help="training shards whose programs are left out"
    )
    hz.add_argument(
        "--constrained",
        action="store_true",
        help="decode under the grammar with the embedded engine, as debug sessions do",
    )
    hz.add_argument("--out", type=Path, default=None, help="write the results as JSON")
    hz.set_defaults(run=run_horizon)

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
        choices=["local", "vllm", "oracle", "identity"],
        default="local",
        help="local: the embedded model; vllm: vLLM servers (--vllm-url); oracle: the real "
        "tracer (runs the code; must pass everything); identity: the input unchanged as the "
        "output, the output as the input (a baseline)",
    )
    cx.add_argument("--model", type=Path, default=Path("models/ndb-small"))
    cx.add_argument("--vllm-url", action="append", default=[], help="a vLLM server (repeatable)")
    cx.add_argument(
        "--data",
        type=Path,
        default=None,
        help="JSONL with id, code, input, output and optional entry (default: shared CruxEval)",
    )
    cx.add_argument("--limit", type=int, default=None, help="the first N items only")
    cx.add_argument(
        "--constrained",
        action="store_true",
        help="local: decode under the grammar with the embedded engine, as debug sessions do "
        "(vllm always does)",
    )
    cx.add_argument(
        "--samples", type=int, default=1, help="predictions per item; above 1: pass@k, sampled"
    )
    cx.add_argument(
        "--temperature",
        type=float,
        default=None,
        help=f"sampling temperature (default {SAMPLING_TEMPERATURE:g} with --samples > 1, else 0: "
        "greedy)",
    )
    cx.add_argument("--seed", type=int, default=0, help="seeds every sampled draw")
    cx.add_argument(
        "--check",
        type=int,
        default=1,
        help="local, constrained, input task: keep the best of K candidate inputs by the "
        "forward model's check (model_backend/forward_check.py)",
    )
    cx.add_argument(
        "--stepped",
        type=int,
        default=0,
        metavar="N",
        help="step_return as a debug session steps out: up to N steps into toward main's "
        "return, then one jump (model_backend/session.py, finish; 0: the one action)",
    )
    cx.add_argument("--out", type=Path, default=None)
    cx.set_defaults(run=run_cruxeval)

    rn = tasks.add_parser(
        "run",
        help="run named evaluations from evaluation/runs.toml, for one model or several",
        description="Run the named evaluations of the runs file (all, the NAMEs given, or the "
        "runs of --only GROUP) for each --model; each lands in evaluation/results/<model>/ (the "
        "baselines, which measure no model, in evaluation/results/). A run whose data is "
        "missing is skipped with a message.",
    )
    rn.add_argument("names", nargs="*", metavar="NAME", help="runs to make (default: all)")
    rn.add_argument(
        "--model",
        type=Path,
        action="append",
        default=[],
        help="a model folder (repeatable: old and new side by side; default the runs file's "
        "models)",
    )
    rn.add_argument(
        "--only", action="append", default=[], metavar="GROUP", help="the runs of this group"
    )
    rn.add_argument("--list", action="store_true", help="list the runs and their groups")
    rn.add_argument(
        "--dry-run", action="store_true", help="print each command line, check it, run nothing"
    )
    rn.add_argument("--config", type=Path, default=None, help="default evaluation/runs.toml")
    rn.add_argument(
        "--data-root", type=Path, default=None, help="held-out folders (default data/v1)"
    )
    rn.add_argument(
        "--cruxeval",
        type=Path,
        default=None,
        help="the CruxEval items file (default the shared benchmark file beside the "
        "repository, ../shared/benchmarks/cruxeval.jsonl)",
    )
    rn.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results folder (default evaluation/results; another one with --limit)",
    )
    rn.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="at most N items per run (per action, per bucket): a quick check of the runs",
    )
    rn.set_defaults(run=run_named)

    rp = tasks.add_parser(
        "report",
        help="docs/results.md and the plots from evaluation/results",
        description="Read every results file, write the PNG plots and docs/results.md: the "
        "headline runs with every model side by side and against training tokens, then one "
        "model's detailed tables (our numbers beside the paper's, with their commands).",
    )
    rp.add_argument("--results", type=Path, default=None, help="default evaluation/results")
    rp.add_argument("--plots", type=Path, default=None, help="default evaluation/plots")
    rp.add_argument("--docs", type=Path, default=None, help="default docs/results.md")
    rp.add_argument("--config", type=Path, default=None, help="default evaluation/runs.toml")
    rp.add_argument(
        "--model",
        default=None,
        help="the model folder name the detailed tables show (default the shipped model's)",
    )
    rp.add_argument(
        "--readme",
        type=Path,
        default=None,
        help="also fill this file's block between the results markers with the detailed tables",
    )
    rp.add_argument(
        "--print", action="store_true", help="print docs/results.md instead of writing it"
    )
    rp.set_defaults(run=run_report)


def _write(results: dict, out: Path | None) -> None:
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")


# What a trajectory's origin starts with (the stdlib catalog is part of the generated mix).
TRAJECTORY_ORIGINS = ("generated", "stdlib", "package", "repo", "library")


def run_next_state(args: argparse.Namespace) -> int:
    from neural_debugger.protocol import ActionKind

    from .next_state import evaluate, format_table

    origins = tuple(o.strip() for o in args.origins.split(",")) if args.origins else None
    unknown = sorted(set(origins or ()) - set(TRAJECTORY_ORIGINS))
    if unknown:
        print(
            f"ndb eval next-state: error: unknown origin {', '.join(unknown)}; "
            f"choose from {', '.join(TRAJECTORY_ORIGINS)}"
        )
        return 2
    if args.check < 1:
        print("ndb eval next-state: error: --check must be at least 1")
        return 2
    if args.stepped < 0:
        print("ndb eval next-state: error: --stepped must be 0 (jump) or more")
        return 2
    if args.samples < 1:
        print("ndb eval next-state: error: --samples must be at least 1")
        return 2
    if args.temperature is not None and (args.samples == 1 or args.temperature <= 0):
        print("ndb eval next-state: error: --temperature needs --samples above 1 and is above 0")
        return 2
    temperature = (args.temperature or SAMPLING_TEMPERATURE) if args.samples > 1 else 0.0
    actions = tuple(a.strip() for a in args.actions.split(",")) if args.actions else None
    known = {kind.value for kind in ActionKind}
    if actions is not None and not set(actions) <= known:
        wrong = ", ".join(sorted(set(actions) - known))
        print(f"ndb eval next-state: error: unknown action {wrong}")
        return 2
    if args.unseen is not None and not args.unseen.is_dir():
        print(f"ndb eval next-state: error: --unseen {args.unseen} is not a folder of shards")
        return 2
    results = evaluate(
        args.model,
        args.data,
        args.per_action,
        args.seed,
        constrained=args.constrained,
        origins=origins,
        unseen=args.unseen,
        long_sessions=args.long,
        check=args.check,
        actions=actions,
        stepped=args.stepped,
        samples=args.samples,
        temperature=temperature,
        quantize=args.quantize,
        step=args.step,
    )
    command = f"ndb eval next-state --model {args.model} --data {args.data}"
    command += f" --per-action {args.per_action}" + (f" --seed {args.seed}" if args.seed else "")
    command += " --constrained" if args.constrained else ""
    command += f" --origins {args.origins}" if args.origins else ""
    command += f" --unseen {args.unseen}" if args.unseen else ""
    command += " --long" if args.long else ""
    command += f" --check {args.check}" if args.check > 1 else ""
    command += f" --stepped {args.stepped}" if args.stepped else ""
    command += (
        f" --samples {args.samples} --temperature {temperature:g}" if args.samples > 1 else ""
    )
    command += f" --actions {args.actions}" if args.actions else ""
    command += f" --quantize {args.quantize}" if args.quantize else ""
    command += f" --step {args.step}" if args.step else ""
    results["command"] = command + (f" --out {args.out}" if args.out else "")
    print(format_table(results))
    _write(results, args.out)
    return 0


def run_horizon(args: argparse.Namespace) -> int:
    from .next_state import format_horizon, horizon

    if args.exclude is not None and not args.exclude.is_dir():
        print(f"ndb eval horizon: error: no shards folder {args.exclude}")
        return 2
    results = horizon(
        args.model,
        args.programs,
        args.seed,
        args.per_bucket,
        args.exclude,
        constrained=args.constrained,
    )
    command = f"ndb eval horizon --model {args.model} --programs {args.programs}"
    command += f" --seed {args.seed} --per-bucket {args.per_bucket}"
    command += f" --exclude {args.exclude}" if args.exclude else ""
    command += " --constrained" if args.constrained else ""
    results["command"] = command + (f" --out {args.out}" if args.out else "")
    print(format_horizon(results))
    _write(results, args.out)
    return 0


def cruxeval_command(args: argparse.Namespace) -> str:
    """The command line that reproduces a CruxEval run, stored in its results file so the
    README table can say how each number was made."""
    parts = ["ndb eval cruxeval", f"--task {args.task}", f"--action {args.action}"]
    parts.append(f"--backend {args.backend}")
    if args.backend in ("local", "vllm") and args.model != Path("models/ndb-small"):
        parts.append(f"--model {args.model}")
    parts += [f"--vllm-url {url}" for url in args.vllm_url]
    if args.data is not None:
        parts.append(f"--data {args.data}")
    if args.limit is not None:
        parts.append(f"--limit {args.limit}")
    if args.constrained:
        parts.append("--constrained")
    if args.samples > 1:
        parts += [f"--samples {args.samples}", f"--temperature {args.temperature:g}"]
        parts.append(f"--seed {args.seed}")
    elif args.temperature:
        parts += [f"--temperature {args.temperature:g}", f"--seed {args.seed}"]
    if args.check > 1:
        parts.append(f"--check {args.check}")
    if args.stepped:
        parts.append(f"--stepped {args.stepped}")
    if args.out is not None:
        parts.append(f"--out {args.out}")
    return " ".join(parts)


def run_cruxeval(args: argparse.Namespace) -> int:
    import contextlib
    import time

    from neural_debugger.paths import cruxeval_path

    from . import cruxeval

    def fail(message: str) -> int:
        print(f"ndb eval cruxeval: error: {message}")
        return 2

    data = args.data or cruxeval_path()
    if not data.exists():
        return fail(f"no data file {data}")
    if args.samples < 1:
        return fail("--samples must be at least 1")
    if args.temperature is None:
        args.temperature = SAMPLING_TEMPERATURE if args.samples > 1 else 0.0
    if args.temperature < 0:
        return fail("--temperature must be at least 0")
    if args.samples > 1 and args.temperature == 0:
        return fail("--samples above 1 needs a temperature above 0 (greedy draws are all equal)")
    raw = args.backend == "local" and not args.constrained
    if raw and (args.samples > 1 or args.temperature):
        return fail("sampling needs --constrained (the raw model is measured greedy)")
    if args.backend == "vllm" and not args.vllm_url:
        return fail("--backend vllm needs --vllm-url")
    if args.check < 1:
        return fail("--check must be at least 1")
    if args.check > 1 and (args.backend != "local" or raw):
        return fail("--check needs --backend local --constrained (it scores with the model)")
    if args.action not in cruxeval.ACTIONS[args.task]:
        options = " or ".join(cruxeval.ACTIONS[args.task])
        return fail(f"{args.action} does not predict the {args.task}; use {options}")
    if args.stepped < 0:
        return fail("--stepped must be 0 (the one action) or more")
    if args.stepped and (args.action != "step_return" or raw or args.backend == "identity"):
        return fail("--stepped steps out by a debug session: --action step_return, --constrained")
    items = cruxeval.load(data, args.limit)
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.backend == "identity":
            predict = None
        elif raw:
            predict = cruxeval.raw_predictor(args.model)
        else:
            predict = stack.enter_context(
                cruxeval.engine_predictor(
                    args.backend,
                    args.model,
                    args.vllm_url,
                    args.temperature,
                    args.seed,
                    args.check,
                    args.stepped,
                )
            )
        results = cruxeval.run(items, args.task, args.action, predict, args.backend, args.samples)
    if args.backend == "identity":
        decoding = "identity baseline"
    elif args.backend == "oracle":
        decoding = "oracle (real run)"
    else:
        decoding = "raw" if raw else "constrained"
        decoding += (
            " greedy"
            if args.samples == 1 and not args.temperature
            else (f" sampled, temperature {args.temperature:g}")
        )
        if args.check > 1 and args.task == "input":
            decoding += f", checked forwards ({args.check} candidates)"
        if args.stepped:
            decoding += f", stepped out (up to {args.stepped} steps into, then one jump)"
    meta = {
        "decoding": decoding,
        "model": str(args.model) if args.backend in ("local", "vllm") else None,
        "data": data.name,
        "limit": args.limit,
        "seconds": round(time.monotonic() - started, 1),
        "command": cruxeval_command(args),
    }
    results = {**{k: v for k, v in results.items() if k != "records"}, **meta,
               "records": results["records"]}  # fmt: skip
    print(json.dumps({k: v for k, v in results.items() if k != "records"}))
    _write(results, args.out)
    return 0


def run_named(args: argparse.Namespace) -> int:
    """``ndb eval run``: check every selected run's command line first, then run them."""
    import shlex

    from . import runs

    def fail(message: str) -> int:
        print(f"ndb eval run: error: {message}")
        return 2

    try:
        config = runs.load(args.config or runs.CONFIG)
        chosen = runs.select(config, args.names, args.only)
    except runs.ConfigError as err:
        return fail(str(err))
    if args.list:
        for run in chosen:
            where = run.data or ("CruxEval" if run.task == "cruxeval" else "fresh programs")
            groups = ",".join(run.groups) or "-"
            print(f"{run.name:48} {run.task:10} {where:18} groups {groups}")
        return 0
    if args.limit is not None and args.limit < 1:
        return fail("--limit must be at least 1")
    results = args.results or runs.RESULTS
    if args.limit is not None and results.resolve() == runs.RESULTS.resolve():
        return fail("--limit would write over stored results: give --results DIR as well")
    models = list(args.model) or list(config.models)
    names = [m.name for m in models]
    if len(set(names)) < len(names):
        return fail("two models with one folder name would share a results folder")
    if any(r.measures_a_model for r in chosen):
        absent = [str(m) for m in models if not (m / "config.json").exists()]
        if absent:
            return fail(f"no model in {', '.join(absent)} (a folder with config.json)")
    data_root = args.data_root or config.data_root
    planned: list[tuple[runs.Run, Path | None, list[str]]] = []
    try:
        for run in chosen:
            for model in models if run.measures_a_model else [None]:
                argv = runs.argv(run, model, data_root, results, args.limit, args.cruxeval)
                runs.check(argv)
                planned.append((run, model, argv))
    except runs.ConfigError as err:
        return fail(str(err))
    ran, skipped, failed = 0, 0, []
    for run, model, argv in planned:
        label = run.name + (f" ({model.name})" if model is not None else "")
        missing = [p for p in runs.data_paths(run, data_root, args.cruxeval) if not p.exists()]
        if args.dry_run:
            print("ndb " + shlex.join(argv))
        if missing:
            print(f"skip {label}: no {', '.join(runs.shown(p) for p in missing)} (data missing)")
            skipped += 1
            continue
        if args.dry_run:
            continue
        print("== ndb " + shlex.join(argv), flush=True)
        try:
            parsed = runs.check(argv)
            status = int(parsed.run(parsed))
        except Exception as err:  # one broken run must not cost the others' hours
            print(f"ndb eval run: {label} stopped: {type(err).__name__}: {err}")
            status = 1
        if status != 0:
            failed.append(label)
            continue
        command = ["ndb", "eval", "run", run.name]
        command += ["--model", runs.shown(model)] if model is not None else []
        command += ["--data-root", runs.shown(data_root)] if args.data_root else []
        command += ["--cruxeval", runs.shown(args.cruxeval)] if args.cruxeval else []
        command += ["--results", runs.shown(results)] if args.results else []
        command += ["--limit", str(args.limit)] if args.limit is not None else []
        runs.annotate(runs.results_path(run, model, results), run, model, shlex.join(command))
        ran += 1
    verb = "checked" if args.dry_run else "ran"
    done = len(planned) - skipped - len(failed) if args.dry_run else ran
    print(f"ndb eval run: {verb} {done}, skipped {skipped} (data missing), failed {len(failed)}")
    for label in failed:
        print(f"  failed: {label}")
    return 1 if failed else 0


def run_report(args: argparse.Namespace) -> int:
    from . import report

    docs = None if args.print else (args.docs or report.DOCS)
    try:
        text = report.report(
            args.results or report.RESULTS,
            args.plots or report.PLOTS,
            docs,
            args.readme,
            args.config,
            args.model,
        )
    except ValueError as err:  # a README without markers, a bad runs file, an unknown model
        print(f"ndb eval report: error: {err}")
        return 2
    if args.print:
        print(text)
    else:
        also = f" and the block of {args.readme}" if args.readme else ""
        print(f"plots in {args.plots or report.PLOTS}; wrote {docs}{also}")
    return 0
