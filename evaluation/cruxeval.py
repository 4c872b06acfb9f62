"""CruxEval with one debugger action, as in the paper, scored by re-execution.

* Output prediction: the prompt is the function plus the wrapper ``def main(): return f(INPUT)``,
  ``main``'s call state, ``step_into``, and ``main``'s line state ``    return f(INPUT)`` (the
  entry state: the line that makes the call). One action from there, ``step_return`` or
  ``breakpoint    return f(INPUT)``, leads to ``main``'s return state, whose value is the
  predicted output.
* Input prediction: the prompt is the function alone and its return state, whose value is the
  expected output and whose source line is the function's last ``return`` statement (ours: which
  return ran cannot be known without executing); ``inv_step_call`` leads to the call state,
  whose locals are the predicted arguments, joined in parameter order.

A prediction passes when ``f(input) == output`` holds on re-execution in a sandboxed subprocess
(no stdin, a memory limit, a timeout), as CruxEval scores; exact match of the text is reported
too. ``--backend baseline`` predicts the input unchanged (output task) or the output as the input
(input task), to show the scorer rejects wrong answers and accepts right ones.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neural_debugger.protocol import (
    Action,
    ActionKind,
    ParseError,
    State,
    StateKind,
    encode_prompt,
    parse_state,
)
from neural_debugger.tracer.program import Program

ACTIONS = {"output": ("step_return", "breakpoint"), "input": ("inv_step_call",)}
EXEC_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Item:
    id: str
    code: str
    input: str
    output: str
    entry: str = "f"


def load(path: Path, limit: int | None = None) -> list[Item]:
    items = []
    with path.open() as f:
        for line in f:
            row = json.loads(line)
            items.append(
                Item(row["id"], row["code"], row["input"], row["output"], row.get("entry", "f"))
            )
            if limit is not None and len(items) >= limit:
                break
    return items


def _function(item: Item) -> ast.FunctionDef:
    for node in ast.parse(item.code).body:
        if isinstance(node, ast.FunctionDef) and node.name == item.entry:
            return node
    raise ValueError(f"{item.id}: no function {item.entry!r} in the code")


def output_prompt(item: Item, action: str) -> str:
    program = Program(path="cruxeval.py", source=item.code, entry=f"{item.entry}({item.input})")
    call_line, return_line = program.wrapper_lines
    states = [
        State(kind=StateKind.CALL, src=call_line, locals={}),
        State(kind=StateKind.LINE, src=return_line, locals={}, diff=True),
    ]
    if action == "step_return":
        last = Action(kind=ActionKind.STEP_RETURN)
    elif action == "breakpoint":
        last = Action(kind=ActionKind.BREAKPOINT, target=return_line)
    else:
        raise ValueError(f"{action} is not an output action")
    return encode_prompt(program.context, states, [Action(kind=ActionKind.STEP_INTO), last])


def input_prompt(item: Item) -> str:
    program = Program(path="cruxeval.py", source=item.code)
    function = _function(item)
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    line = max(n.lineno for n in returns) if returns else function.end_lineno or function.lineno
    src = program.lines[line - 1]
    start = State(kind=StateKind.INV_RETURN, src=src, value=item.output)
    return encode_prompt(program.function_context, [start], [Action(kind=ActionKind.INV_STEP_CALL)])


def prediction_from_state(item: Item, task: str, text: str) -> str | None:
    """The predicted output, or input arguments, read off a generated state (None: unusable)."""
    try:
        state = parse_state(text)
    except ParseError:
        return None
    if task == "output":
        return state.value if state.kind is StateKind.RETURN else None
    if state.kind is not StateKind.INV_CALL or state.locals is None:
        return None
    names = [a.arg for a in _function(item).args.args]
    if any(state.locals.get(n) is None for n in names):
        return None
    return ", ".join(state.locals[n] for n in names)  # type: ignore[misc]


_RUNNER = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))
source = sys.stdin.read()
sys.stdin = None
namespace = {"__name__": "cruxeval"}
exec(source, namespace)
"""


def passes(item: Item, task: str, prediction: str | None) -> bool:
    """Re-execute ``f(input) == output`` with the prediction in place, sandboxed."""
    if prediction is None:
        return False
    if task == "output":
        check = f"assert {item.entry}({item.input}) == ({prediction})"
    else:
        check = f"assert {item.entry}({prediction}) == ({item.output})"
    source = f"{item.code}\n{check}\n"
    with tempfile.TemporaryDirectory(prefix="ndb-crux-") as tmp:
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", _RUNNER],
                input=source,
                capture_output=True,
                text=True,
                timeout=EXEC_TIMEOUT_S,
                cwd=tmp,
                env={"PATH": os.environ.get("PATH", "")},
            )
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0


Predictor = Callable[[str], str]  # prompt -> generated state text


def run(
    items: list[Item],
    task: str,
    action: str,
    predict_state: Predictor | None,
    backend: str,
) -> dict[str, Any]:
    """Score every item; ``predict_state`` is None for the baseline."""
    if action not in ACTIONS[task]:
        raise ValueError(f"{action} does not predict the {task}; use {' or '.join(ACTIONS[task])}")
    records = []
    for item in items:
        if predict_state is None:
            prediction: str | None = item.input if task == "output" else item.output
        else:
            prompt = output_prompt(item, action) if task == "output" else input_prompt(item)
            prediction = prediction_from_state(item, task, predict_state(prompt))
        truth = item.output if task == "output" else item.input
        records.append(
            {
                "id": item.id,
                "prediction": prediction,
                "passed": passes(item, task, prediction),
                "exact": prediction == truth,
            }
        )
    n = len(records)
    return {
        "task": task,
        "action": action,
        "backend": backend,
        "n": n,
        "pass@1": sum(r["passed"] for r in records) / n if n else 0.0,
        "exact_match": sum(r["exact"] for r in records) / n if n else 0.0,
        "unusable": sum(r["prediction"] is None for r in records),
        "records": records,
    }


def constrained_predictor(model_dir: Path) -> Predictor:
    """The embedded engine's greedy state under the grammar, as a debug session would show it.

    A prediction that runs past the token budget yields its partial text (scored unusable).
    """
    from neural_debugger.model_backend.backend import BackendError, DecodeOptions, History
    from neural_debugger.model_backend.local import LocalSession, load_model
    from neural_debugger.protocol import parse_prompt

    loaded = load_model(Path(model_dir).resolve())

    def predict(prompt: str) -> str:
        trajectory, action = parse_prompt(prompt)
        history = History(trajectory.code, trajectory.states, trajectory.actions)
        try:
            return (
                LocalSession(loaded, history.code)
                .predict_now(history, action, DecodeOptions())
                .text
            )
        except BackendError as err:
            return getattr(err, "text", "")

    return predict
