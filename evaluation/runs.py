"""Experiments as data: the named evaluation runs of ``evaluation/runs.toml``.

Each run is one ``ndb eval next-state | horizon | cruxeval`` command line, kept in a config file
instead of a Makefile so that every number in ``docs/results.md`` names the run that made it,
several models can be measured by the same runs (one results folder per model, side by side in
the report), and a run whose held-out data has not been made yet is skipped, not a failure.
:func:`argv` builds the exact argument list; ``ndb eval run`` executes it in this process through
the same parser a user's command line goes through.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neural_debugger.paths import REPOSITORY, cruxeval_path

CONFIG = REPOSITORY / "evaluation" / "runs.toml"
RESULTS = REPOSITORY / "evaluation" / "results"
TASKS = ("next-state", "horizon", "cruxeval")
# The option ``items`` becomes, per task.
ITEMS_OPTION = {"next-state": "--per-action", "cruxeval": "--limit", "horizon": "--per-bucket"}
MODEL_FREE_BACKENDS = ("oracle", "identity")  # baselines: the same answers whatever the model
RUN_KEYS = frozenset(
    {"task", "data", "predict", "actions", "items", "backend", "flags", "out", "groups", "headline"}
)
DATA_ROOT = "{data_root}"
NAME = re.compile(r"[A-Za-z0-9_.-]+")


class ConfigError(ValueError):
    """The runs file says something the run command cannot do."""


@dataclass(frozen=True)
class Run:
    """One named evaluation: what the config says, before a model or data root is chosen."""

    name: str
    task: str
    data: str | None = None
    predict: str | None = None
    actions: tuple[str, ...] = ()
    items: int | None = None
    backend: str = "local"
    flags: dict[str, bool | int | float | str] = field(default_factory=dict)
    out: str = ""
    groups: tuple[str, ...] = ()
    headline: str | None = None

    @property
    def measures_a_model(self) -> bool:
        return self.task != "cruxeval" or self.backend not in MODEL_FREE_BACKENDS


@dataclass(frozen=True)
class Config:
    runs: dict[str, Run]
    models: tuple[Path, ...]
    data_root: Path


def _resolve(path: str | Path) -> Path:
    """Paths written in the config are relative to the repository root."""
    path = Path(path)
    return path if path.is_absolute() else REPOSITORY / path


def _parse_run(name: str, table: dict[str, Any]) -> Run:
    def fail(message: str) -> ConfigError:
        return ConfigError(f"run {name}: {message}")

    if not NAME.fullmatch(name):
        raise fail("a run name holds letters, digits, '_', '-' and '.' only")
    unknown = sorted(set(table) - RUN_KEYS)
    if unknown:
        raise fail(f"unknown key {', '.join(unknown)} (known: {', '.join(sorted(RUN_KEYS))})")
    task = table.get("task")
    if task not in TASKS:
        raise fail(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    actions = table.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise fail("actions is a list of action names")
    items = table.get("items")
    if items is not None and (not isinstance(items, int) or isinstance(items, bool) or items < 1):
        raise fail("items is a whole number above 0")
    flags = table.get("flags", {})
    if not isinstance(flags, dict) or not all(
        isinstance(v, bool | int | float | str) for v in flags.values()
    ):
        raise fail("flags is a table of switches (true), numbers and strings")
    if any(v is False for v in flags.values()):
        raise fail("a switch is given as true or left out, never false")
    out = table.get("out", f"{name}.json")
    if not isinstance(out, str) or not NAME.fullmatch(out) or not out.endswith(".json"):
        raise fail(f"out is a file name ending .json (results live in one folder), not {out!r}")
    groups = table.get("groups", [])
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise fail("groups is a list of names")
    if task == "cruxeval":
        if table.get("predict") not in ("output", "input"):
            raise fail("a cruxeval run says predict = 'output' or 'input'")
        if len(actions) != 1:
            raise fail("a cruxeval run names exactly one action")
    else:
        for key in ("predict", "backend"):
            if key in table:
                raise fail(f"{key} is for cruxeval runs only")
    if task == "next-state" and not table.get("data"):
        raise fail("a next-state run names its held-out folder (data)")
    if task == "horizon" and ("data" in table or actions):
        raise fail("a horizon run draws fresh programs: no data, no actions")
    return Run(
        name=name,
        task=task,
        data=table.get("data"),
        predict=table.get("predict"),
        actions=tuple(actions),
        items=items,
        backend=table.get("backend", "local"),
        flags=dict(flags),
        out=out,
        groups=tuple(groups),
        headline=table.get("headline"),
    )


def load(path: Path = CONFIG) -> Config:
    """The runs file, checked key by key (:func:`argv` checks the options themselves)."""
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"no runs file {path}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: {err}") from None
    settings = raw.get("settings", {})
    unknown = sorted(set(raw) - {"settings", "runs"}) + sorted(
        set(settings) - {"models", "data_root"}
    )
    if unknown:
        raise ConfigError(f"{path}: unknown key {', '.join(unknown)}")
    runs = {name: _parse_run(name, table) for name, table in raw.get("runs", {}).items()}
    outs: dict[str, str] = {}
    for run in runs.values():
        key = f"{run.measures_a_model}:{run.out}"
        if key in outs:
            raise ConfigError(f"runs {outs[key]} and {run.name} write the same file {run.out}")
        outs[key] = run.name
    models = tuple(_resolve(m) for m in settings.get("models", ["models/ndb-small"]))
    return Config(runs, models, _resolve(settings.get("data_root", "data/v1")))


def select(config: Config, names: list[str], only: list[str]) -> list[Run]:
    """The runs named (in the order given) or in one of the groups; all runs when neither."""
    unknown = [n for n in names if n not in config.runs]
    if unknown:
        raise ConfigError(f"no run named {', '.join(unknown)} (see ndb eval run --list)")
    groups = {g for run in config.runs.values() for g in run.groups}
    missing = sorted(set(only) - groups)
    if missing:
        raise ConfigError(f"no group {', '.join(missing)} (groups: {', '.join(sorted(groups))})")
    chosen = [config.runs[n] for n in names]
    chosen += [r for r in config.runs.values() if set(r.groups) & set(only) and r not in chosen]
    return chosen if names or only else list(config.runs.values())


def shown(path: Path) -> str:
    """A path as a command line shows it: relative to the working folder when inside it or
    beside it (the shared benchmarks next to the checkout), else whole."""
    relative = Path(os.path.relpath(path.resolve(), Path.cwd().resolve()))
    return str(relative if relative.parts[:3].count("..") < 3 else path)


def results_path(run: Run, model: Path | None, results: Path = RESULTS) -> Path:
    """Where a run's results file lands: one folder per model, baselines at the top."""
    return results / model.name / run.out if run.measures_a_model and model else results / run.out


def _flag_value(value: bool | int | float | str, data_root: Path) -> str:
    return str(value).replace(DATA_ROOT, shown(data_root))


def items_file(run: Run, cruxeval: Path | None) -> Path | None:
    """A CruxEval run's items: its own file, else ``cruxeval`` (the command's choice), else
    None for the default the subcommand itself finds (the shared file beside the repository)."""
    return _resolve(run.data) if run.data else cruxeval


def data_paths(run: Run, data_root: Path, cruxeval: Path | None = None) -> list[Path]:
    """Every input the run reads that must exist before it starts: its held-out folder or
    items file, and folders its flags name under the data root (training shards to exclude)."""
    paths = []
    if run.task == "next-state":
        paths.append(data_root / str(run.data))
    elif run.task == "cruxeval":
        paths.append(items_file(run, cruxeval) or cruxeval_path())
    for value in run.flags.values():
        if isinstance(value, str) and DATA_ROOT in value:
            paths.append(Path(value.replace(DATA_ROOT, str(data_root))))
    return paths


def argv(
    run: Run,
    model: Path | None,
    data_root: Path,
    results: Path = RESULTS,
    limit: int | None = None,
    cruxeval: Path | None = None,
) -> list[str]:
    """The ``ndb`` argument list of one run for one model (``None``: a baseline). ``limit``
    caps the items (a quick check; never written over stored results, see the command);
    ``cruxeval``: the items file of CruxEval runs that name none."""
    args = ["eval", run.task]
    if run.task == "cruxeval":
        args += ["--task", str(run.predict), "--action", run.actions[0], "--backend", run.backend]
        items_from = items_file(run, cruxeval)
        if items_from is not None:
            args += ["--data", shown(items_from)]
    elif run.task == "next-state":
        args += ["--data", shown(data_root / str(run.data))]
        if run.actions:
            args += ["--actions", ",".join(run.actions)]
    if run.measures_a_model:
        if model is None:
            raise ConfigError(f"run {run.name} measures a model: give one")
        args += ["--model", shown(model)]
    items = run.items if limit is None else min(limit, run.items or limit)
    if items is not None:
        args += [ITEMS_OPTION[run.task], str(items)]
    for key, value in run.flags.items():
        option = "--" + key.replace("_", "-")
        args += [option] if value is True else [option, _flag_value(value, data_root)]
    return [*args, "--out", shown(results_path(run, model, results))]


def parser() -> argparse.ArgumentParser:
    """The ``ndb`` parser with the ``eval`` command only: the same options and checks a user's
    command line meets (evaluation builds on the runtime, never on the top-level command)."""
    from .cli import add_parser

    ndb = argparse.ArgumentParser(prog="ndb")
    add_parser(ndb.add_subparsers(dest="command", required=True))
    return ndb


def check(args: list[str]) -> argparse.Namespace:
    """Parse an argument list as ``ndb`` does: an unknown option or a bad value is a
    :class:`ConfigError` naming it, found before any run starts."""
    import contextlib
    import io

    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            return parser().parse_args(args)
    except SystemExit:
        message = errors.getvalue().strip().splitlines()
        detail = message[-1] if message else "bad options"
        raise ConfigError(f"ndb {' '.join(args)}: {detail}") from None


def training_tokens(model: Path) -> int | None:
    """Training tokens the model has seen over all its stages, from the ``run.json`` training
    writes beside its weights: the last stage's ``state.tokens_seen`` plus the ``tokens`` of
    each earlier stage it resumed from (``state.earlier``); None when the folder has none."""
    try:
        state = json.loads((model / "run.json").read_text()).get("state", {})
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    tokens = state.get("tokens_seen")
    if not isinstance(tokens, int | float):
        return None
    return int(tokens) + sum(int(stage.get("tokens", 0)) for stage in state.get("earlier", []))


def annotate(path: Path, run: Run, model: Path | None, command: str) -> None:
    """Add to a written results file the run's name, the one command that repeats it and the
    model's training tokens, so the report can name and place every number."""
    result = json.loads(path.read_text())
    result["run"] = run.name
    result["run_command"] = command
    if run.headline:
        result["headline"] = run.headline
    if run.measures_a_model and model is not None:
        result["model_name"] = model.name
        result["training_tokens"] = training_tokens(model)
    path.write_text(json.dumps(result, indent=2) + "\n")
