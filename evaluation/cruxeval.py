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
too. With ``samples`` > 1 each item gets that many sampled predictions and pass@k is the unbiased
estimator of Chen et al. (2021) over them.

Backends, all through the same prompts, parser and scorer, so a number from one is comparable
with a number from another:

* ``local``: the embedded model, raw greedy (what the model writes on its own) or, with
  ``constrained``, decoded by the embedded engine under the grammar, as debug sessions show it;
* ``vllm``: the same grammar-constrained decoding through vLLM servers;
* ``oracle``: the real tracer answers the same prompt (it runs the program); it must pass
  everything, which shows the prompts are real states and the scorer accepts right answers;
* ``identity``: no model, the input unchanged as the output (or the output as the input); it
  passes exactly where ``f(x) == x``, which shows the scorer rejects wrong answers.
"""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neural_debugger.protocol import (
    Action,
    ActionKind,
    ParseError,
    State,
    StateKind,
    encode_prompt,
    encode_state,
    parse_state,
)
from neural_debugger.tracer.program import Program

if TYPE_CHECKING:
    from neural_debugger.model_backend.backend import DecodeOptions, Engine

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


Predictor = Callable[[Item, str, int], str]
"""(item, prompt, draw number) -> the generated state text; draw numbers seed sampled draws."""

BACKENDS = ("local", "vllm", "oracle", "identity")
PASS_AT = (1, 5, 10)  # pass@k reported for every k here that is at most the number of samples


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate from ``n`` samples of which ``c`` pass (Chen et al., 2021):
    the chance that at least one of ``k`` samples drawn without replacement passes."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def draw_seed(seed: int, item: Item, draw: int) -> int:
    """A seed per item and draw, so a sampled run gives the same records whatever the order,
    the limit or the process it runs in."""
    return zlib.crc32(f"{seed}:{item.id}:{draw}".encode())


def truth(item: Item, task: str) -> str:
    return item.output if task == "output" else item.input


def prompt_for(item: Item, task: str, action: str) -> str:
    return output_prompt(item, action) if task == "output" else input_prompt(item)


def run(
    items: list[Item],
    task: str,
    action: str,
    predict_state: Predictor | None,
    backend: str,
    samples: int = 1,
) -> dict[str, Any]:
    """Score every item; ``predict_state`` is None for the identity baseline.

    Each record holds the first prediction as ``prediction`` and whether it passed; with
    ``samples`` > 1 also every sampled prediction and its verdict. ``pass@1`` is then the mean
    share of passing samples (the unbiased estimate), and ``pass@k`` is added for k in
    :data:`PASS_AT` up to ``samples``.
    """
    if action not in ACTIONS[task]:
        raise ValueError(f"{action} does not predict the {task}; use {' or '.join(ACTIONS[task])}")
    if samples < 1:
        raise ValueError("samples must be at least 1")
    if predict_state is None:
        samples = 1  # the baseline is deterministic: one prediction says it all
    records = []
    for item in items:
        predictions: list[str | None] = []
        for draw in range(samples):
            if predict_state is None:
                predictions.append(item.input if task == "output" else item.output)
            else:
                text = predict_state(item, prompt_for(item, task, action), draw)
                predictions.append(prediction_from_state(item, task, text))
        verdicts: dict[str | None, bool] = {}  # one re-execution per distinct prediction
        for prediction in predictions:
            if prediction not in verdicts:
                verdicts[prediction] = passes(item, task, prediction)
        record: dict[str, Any] = {
            "id": item.id,
            "prediction": predictions[0],
            "passed": verdicts[predictions[0]],
            "exact": predictions[0] == truth(item, task),
        }
        if samples > 1:
            record["predictions"] = predictions
            record["passes"] = [verdicts[p] for p in predictions]
            record["exacts"] = [p == truth(item, task) for p in predictions]
        records.append(record)
    return summarise(records, task, action, backend, samples)


def summarise(
    records: list[dict[str, Any]], task: str, action: str, backend: str, samples: int
) -> dict[str, Any]:
    """The figures over the records (kept last, so the file reads figures first)."""
    n = len(records)

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    out: dict[str, Any] = {"task": task, "action": action, "backend": backend, "n": n}
    out["samples"] = samples
    if samples == 1:
        out["pass@1"] = mean([float(r["passed"]) for r in records])
        out["exact_match"] = mean([float(r["exact"]) for r in records])
    else:
        for k in (*[k for k in PASS_AT if k < samples], samples):
            out[f"pass@{k}"] = mean([pass_at_k(samples, sum(r["passes"]), k) for r in records])
        out["exact_match"] = mean([sum(r["exacts"]) / samples for r in records])
        out["first_sample_pass"] = mean([float(r["passed"]) for r in records])
    out["unusable"] = sum(r["prediction"] is None for r in records)
    out["records"] = records
    return out


def raw_predictor(model_dir: Path) -> Predictor:
    """The raw model's unconstrained greedy state: what it writes before any grammar helps."""
    from neural_debugger.model_backend.generate import greedy_state
    from neural_debugger.model_backend.llama import load_pretrained
    from neural_debugger.model_backend.tokenizer import load_tokenizer

    model, tokenizer = load_pretrained(model_dir), load_tokenizer(model_dir)

    def predict(item: Item, prompt: str, draw: int) -> str:
        return greedy_state(model, tokenizer, prompt)

    return predict


async def stepped_out(
    engine: Engine, program: Program, prompt: Sequence[State], options: DecodeOptions, steps: int
) -> str:
    """``main``'s return as a debug session's step out finds it: the session walks to the
    prompt's entry line (one step into, which the grammar fixes), then steps out by up to
    ``steps`` steps into and one jump. A walk that does not stand where the prompt does, or
    that the engine cannot finish, yields its partial text, scored unusable."""
    from neural_debugger.model_backend.backend import BackendError
    from neural_debugger.model_backend.session import DebugSession, finish

    try:
        session = await DebugSession.open(program, engine, options=options, return_steps=steps)
    except BackendError as err:
        return getattr(err, "text", "")
    try:
        await session.step(Action(kind=ActionKind.STEP_INTO))
        if tuple(session.states) != tuple(prompt):
            return ""
        return encode_state((await finish(session)).state)
    except BackendError as err:
        return getattr(err, "text", "")
    finally:
        await session.backend.aclose()


@contextmanager
def engine_predictor(
    backend: str,
    model_dir: Path | None = None,
    vllm_urls: Sequence[str] = (),
    temperature: float = 0.0,
    seed: int = 0,
    check: int = 1,
    stepped: int = 0,
) -> Iterator[Predictor]:
    """A predictor over a backend engine (``local`` under the grammar, ``vllm`` or ``oracle``),
    each item a fresh session, as a debug session on that function would be.

    ``temperature`` 0 is greedy; above 0 each draw is sampled with its own :func:`draw_seed`.
    ``check`` > 1: an inverse prediction keeps the best of that many candidates by the forward
    model's check (:mod:`neural_debugger.model_backend.forward_check`; the local engine only).
    ``stepped`` > 0: a ``step_return`` is answered as a debug session steps out
    (:func:`~neural_debugger.model_backend.session.finish`): up to that many steps into from
    ``main``'s line toward its return, then one jump.
    A prediction the engine cannot finish (budget passed, server down) yields its partial text,
    scored unusable. The oracle runs ``f(input)`` for real; for the input task, where ``f``
    returned from another ``return`` than the prompt's last one, it starts from the real return
    state instead (the prompt's guess is not what ran).
    """
    from anyio.from_thread import start_blocking_portal

    from neural_debugger.model_backend.backend import BackendError, DecodeOptions, History
    from neural_debugger.model_backend.engines import make_engine
    from neural_debugger.protocol import parse_prompt

    engine = make_engine(backend, model_dir, vllm_urls)

    async def predict_async(item: Item, prompt: str, draw: int) -> str:
        trajectory, action = parse_prompt(prompt)
        history = History(trajectory.code, trajectory.states, trajectory.actions)
        inverse = action.kind.is_inverse
        program = Program(path="cruxeval.py", source=item.code, entry=f"{item.entry}({item.input})")
        options = DecodeOptions(
            temperature=temperature, seed=draw_seed(seed, item, draw), check=check
        )
        if stepped and action.kind is ActionKind.STEP_RETURN:
            return await stepped_out(engine, program, trajectory.states, options, stepped)
        try:
            session = await engine.open(program, inverse=inverse)
        except BackendError as err:
            return getattr(err, "text", "")
        try:
            try:
                return (await session.predict(history, action, options)).text
            except BackendError:
                first = getattr(session, "first_state", None)
                if backend != "oracle" or not inverse or first is None:
                    raise
                real = History(trajectory.code, (first(),), ())
                return (await session.predict(real, action, options)).text
        except BackendError as err:
            return getattr(err, "text", "")
        finally:
            await session.aclose()

    with start_blocking_portal() as portal:
        try:
            yield lambda item, prompt, draw: portal.call(predict_async, item, prompt, draw)
        finally:
            portal.call(engine.aclose)
