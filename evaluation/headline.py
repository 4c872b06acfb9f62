"""The headline numbers of ``docs/results.md``: every model side by side, and score against
training tokens.

The headline runs are those of ``evaluation/runs.toml`` with a ``headline`` label; each model's
results folder (``evaluation/results/<model>/``) holds its files under the runs' names, so one
table can put an old model's number beside a new one's, each with its count, its 95% interval
and the one command that made it. Models are ordered by the training tokens they had seen
(``run.json``), so reading a row left to right is reading training progress.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neural_debugger.paths import REPOSITORY

from . import runs
from .report import ACTIONS, pct, wilson_interval

Results = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Count:
    """Items right out of items asked: what every headline cell shows."""

    right: int
    n: int

    def cell(self) -> str:
        low, high = wilson_interval(self.right, self.n)
        return f"{self.right}/{self.n} ({pct(self.right / self.n)}; {pct(low)}–{pct(high)})"


def load_models(results_dir: Path) -> dict[str, Results]:
    """Each model's results by run name: one sub-folder of the results folder per model."""
    models = {}
    for folder in sorted(p for p in results_dir.iterdir() if p.is_dir()):
        files = sorted(folder.glob("*.json"))
        if files:
            models[folder.name] = {p.stem: json.loads(p.read_text()) for p in files}
    return models


def tokens_of(results: Results) -> int | None:
    """Training tokens the model had seen when measured: stored in the results file by
    ``ndb eval run``, else read from the model folder's ``run.json`` (files written before
    the run command stored it)."""
    for result in results.values():
        if isinstance(result.get("training_tokens"), int):
            return int(result["training_tokens"])
    for result in results.values():
        if result.get("model"):
            model = Path(str(result["model"]))
            return runs.training_tokens(model if model.is_absolute() else REPOSITORY / model)
    return None


def ordered(models: dict[str, Results]) -> list[str]:
    """Model names by training tokens seen (unknown last), then by name."""
    return sorted(
        models, key=lambda m: (tokens_of(models[m]) is None, tokens_of(models[m]) or 0, m)
    )


def cruxeval_count(result: dict[str, Any]) -> Count:
    """Items whose first prediction passed (pass@1 of a greedy run)."""
    records = result.get("records")
    if records is not None:
        return Count(sum(1 for r in records if r.get("passed")), len(records))
    n = int(result["n"])
    return Count(round(result["pass@1"] * n), n)


def next_state_counts(result: dict[str, Any]) -> dict[str, Count]:
    """Exact next states per action, and over all actions pooled."""
    counts = {}
    for action in ACTIONS:
        exact = result.get("results", {}).get(action, {}).get("exact")
        if exact:
            counts[action] = Count(round(exact["rate"] * exact["n"]), int(exact["n"]))
    if counts:
        counts["all actions"] = Count(
            sum(c.right for c in counts.values()), sum(c.n for c in counts.values())
        )
    return counts


def headline_counts(run: runs.Run, result: dict[str, Any]) -> dict[str, Count]:
    """A headline run's rows: one for CruxEval, one per action (and pooled) for next state."""
    if run.task == "cruxeval":
        return {"pass@1": cruxeval_count(result)}
    return next_state_counts(result)


def _made_by(run: runs.Run, names: list[str], models: dict[str, Results]) -> list[str]:
    lines = []
    for name in names:
        result = models[name].get(Path(run.out).stem)
        if result is not None:
            command = result.get("run_command") or result.get("command")
            lines.append(f"* {name}: `{command}`" + (f" (`{result['command']}`)" if
                         result.get("run_command") else ""))  # fmt: skip
    return lines


def tables(config: runs.Config, models: dict[str, Results]) -> list[str]:
    """One table per headline run: a row per count, a column per model."""
    names = ordered(models)
    if not names:
        return ["(no model results: run `ndb eval run --only headline --model DIR`)"]
    tokens = [tokens_of(models[m]) for m in names]
    header = "| | " + " | ".join(
        f"{m} ({t / 1e9:.2f}B tokens)" if t else m for m, t in zip(names, tokens, strict=True)
    ) + " |"  # fmt: skip
    lines: list[str] = []
    for run in (r for r in config.runs.values() if r.headline):
        lines += [f"#### {run.headline}", ""]
        per_model = {
            m: headline_counts(run, models[m][Path(run.out).stem])
            for m in names
            if Path(run.out).stem in models[m]
        }
        if not per_model:
            lines += [f"Not measured yet: `ndb eval run {run.name} --model DIR`.", ""]
            continue
        rows = [r for r in (*ACTIONS, "all actions", "pass@1") if any(r in c for c in
                per_model.values())]  # fmt: skip
        lines += [header, "|---" * (len(names) + 1) + "|"]
        for row in rows:
            cells = [per_model[m][row].cell() if row in per_model.get(m, {}) else "–"
                     for m in names]  # fmt: skip
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
        lines += ["", "Made by:", "", *_made_by(run, names, models), ""]
    return lines


def series(config: runs.Config, models: dict[str, Results]) -> dict[str, list[tuple[int, float]]]:
    """Per headline run, (training tokens, score) for each model whose tokens are known: the
    pass@1 of CruxEval, the pooled exact match of next state."""
    out: dict[str, list[tuple[int, float]]] = {}
    for run in (r for r in config.runs.values() if r.headline):
        points = []
        for name in ordered(models):
            tokens, result = tokens_of(models[name]), models[name].get(Path(run.out).stem)
            if tokens is None or result is None:
                continue
            counts = headline_counts(run, result)
            count = counts.get("pass@1") or counts.get("all actions")
            if count is not None:
                points.append((tokens, count.right / count.n))
        if points:
            out[str(run.headline)] = points
    return out


def tokens_table(config: runs.Config, models: dict[str, Results]) -> list[str]:
    """Score against training tokens as a table: a row per model, a column per headline."""
    names = ordered(models)
    heads = [r for r in config.runs.values() if r.headline]
    lines = [
        "| model | training tokens | " + " | ".join(str(r.headline) for r in heads) + " |",
        "|---|---|" + "---|" * len(heads),
    ]
    for name in names:
        tokens = tokens_of(models[name])
        cells = []
        for run in heads:
            result = models[name].get(Path(run.out).stem)
            counts = headline_counts(run, result) if result else {}
            count = counts.get("pass@1") or counts.get("all actions")
            cells.append(pct(count.right / count.n) if count else "–")
        shown = f"{tokens:,}" if tokens else "unknown (no run.json)"
        lines.append(f"| {name} | {shown} | " + " | ".join(cells) + " |")
    return lines


def plot_tokens(config: runs.Config, models: dict[str, Results], out: Path) -> bool:
    """Each headline score against the training tokens of the model that made it."""
    from .report import _pyplot

    lines = series(config, models)
    if not lines:
        return False
    plt = _pyplot()
    fig, axis = plt.subplots(figsize=(9, 4.8))
    for label, points in lines.items():
        xs, ys = zip(*sorted(points), strict=True)
        axis.plot(xs, [y * 100 for y in ys], marker="o", label=label)
    axis.set_xscale("log")
    axis.set_xlabel("training tokens seen (run.json)")
    axis.set_ylabel("% right (CruxEval pass@1; next state, exact, all actions)")
    axis.set_ylim(0, 103)
    axis.set_title("Headline scores against training tokens, one point per model")
    axis.legend(frameon=False, fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True
