"""Next-state exact match: how often the model writes exactly the state a real run shows.

Held-out trajectories (programs never seen in training) are cut after each action; the model
greedily writes the next state from that prefix and the result is compared with the truth, as a
whole and per component: the event kind, the source line, the locals (call and line states) and
the value (return and exception states). Output that does not parse counts as wrong and is
counted separately. Results are grouped per action, forward and inverse.

``ndb eval next-state --model DIR --data DIR`` prints the table and can write JSON.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neural_debugger.model_backend.backend import BackendError, DecodeOptions, History
from neural_debugger.model_backend.generate import greedy_state
from neural_debugger.model_backend.local import LoadedModel, LocalSession, load_model
from neural_debugger.protocol import (
    Action,
    ParseError,
    State,
    encode_prompt,
    parse_state,
    parse_trajectory,
)
from neural_debugger.training.model import load_pretrained
from neural_debugger.training.shards import read_shards
from neural_debugger.training.tokenizer import load_tokenizer

COMPONENTS = ("exact", "event", "source", "locals", "value")


@dataclass(frozen=True)
class Item:
    action: str
    prompt: str
    target: State
    distance: int  # how many states the action skipped (1 = the next event)
    history: History | None = None  # the same prompt as a history, for the engine
    next_action: Action | None = None


def load_items(data_dir: Path, per_action: int, seed: int, max_prompt_chars: int) -> list[Item]:
    """Up to ``per_action`` prediction items for every action, drawn from the held-out shards."""
    by_action: dict[str, list[Item]] = defaultdict(list)
    for record in read_shards(data_dir):
        trajectory = parse_trajectory(record["text"])
        for k in range(1, len(trajectory.states)):
            action = trajectory.actions[k - 1]
            prompt = encode_prompt(trajectory.code, trajectory.states[:k], trajectory.actions[:k])
            if len(prompt) > max_prompt_chars:
                break
            history = History(trajectory.code, trajectory.states[:k], trajectory.actions[: k - 1])
            by_action[action.kind.value].append(
                Item(action.kind.value, prompt, trajectory.states[k], 0, history, action)
            )
    rng = random.Random(seed)
    items: list[Item] = []
    for action in sorted(by_action):
        pool = by_action[action]
        rng.shuffle(pool)
        items.extend(pool[:per_action])
    return items


def score(predicted_text: str, target: State) -> dict[str, Any]:
    try:
        predicted = parse_state(predicted_text)
    except ParseError:
        return {"parsed": False, **dict.fromkeys(COMPONENTS, False)}
    result: dict[str, Any] = {
        "parsed": True,
        "exact": predicted == target,
        "event": predicted.kind == target.kind,
        "source": predicted.src == target.src,
    }
    if target.kind.shows_locals:
        result["locals"] = (predicted.locals, predicted.diff) == (target.locals, target.diff)
    if target.kind.shows_value:
        result["value"] = predicted.value == target.value
    return result


def _constrained(loaded: LoadedModel, item: Item) -> str:
    """The embedded engine's greedy state under the grammar (a budget overrun counts as wrong)."""
    assert item.history is not None and item.next_action is not None
    session = LocalSession(loaded, item.history.code)
    try:
        return session.predict_now(item.history, item.next_action, DecodeOptions()).text
    except BackendError as err:
        return getattr(err, "text", "")


def evaluate(
    model_dir: Path,
    data_dir: Path,
    per_action: int = 100,
    seed: int = 0,
    device: str = "cpu",
    constrained: bool = False,
) -> dict[str, Any]:
    """Exact match per action; ``constrained``: decoded by the embedded engine under the grammar
    (what a debug session shows) instead of unconstrained greedy (the raw model)."""
    model = load_pretrained(model_dir, device=device)
    tokenizer = load_tokenizer(model_dir)
    loaded = load_model(Path(model_dir).resolve(), device) if constrained else None
    max_chars = model.config.max_position_embeddings * 2  # a prompt must leave room to answer
    items = load_items(data_dir, per_action, seed, max_chars)
    table: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        if loaded is not None:
            text = _constrained(loaded, item)
        else:
            text = greedy_state(model, tokenizer, item.prompt)
        result = score(text, item.target)
        row = table[item.action]
        row["parsed"].append(result["parsed"])
        for name in COMPONENTS:
            if name in result:
                row[name].append(result[name])
    summary = {
        action: {name: {"n": len(v), "rate": sum(v) / len(v)} for name, v in row.items() if v}
        for action, row in sorted(table.items())
    }
    return {
        "model": str(model_dir),
        "data": str(data_dir),
        "per_action": per_action,
        "decoding": "constrained (embedded engine)" if constrained else "unconstrained greedy",
        "results": summary,
    }


def format_table(results: dict[str, Any]) -> str:
    lines = [f"{'action':15s} {'n':>5s} " + " ".join(f"{c:>7s}" for c in (*COMPONENTS, "parsed"))]
    for action, row in results["results"].items():
        cells = [
            f"{row[c]['rate'] * 100:6.1f}%" if c in row else "      -"
            for c in (*COMPONENTS, "parsed")
        ]
        lines.append(f"{action:15s} {row['exact']['n']:5d} " + " ".join(cells))
    return "\n".join(lines)
