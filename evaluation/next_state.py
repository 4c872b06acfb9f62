"""Next-state exact match: how often the model writes exactly the state a real run shows.

Held-out trajectories (programs never seen in training) are cut after each action; the model
greedily writes the next state from that prefix and the result is compared with the truth, as a
whole and per component: the event kind, the source line, the locals (call and line states) and
the value (return and exception states). Output that does not parse counts as wrong and is
counted separately. Results are grouped per action, forward and inverse.

``ndb eval next-state --model DIR --data DIR`` prints the table and can write JSON.

The horizon (``ndb eval horizon``): how accuracy falls as one action jumps further, the paper's
observation that long jumps are harder. Fresh programs from the training generator (a seed of
their own, every program of the training data left out) are traced; from states along
trajectories sampled with the paper's policy, each jump action (step_over, step_return, a
breakpoint at a later line, inv_step_over, inv_step_call) is asked once, and its distance is the
number of events it moves through in the run (1: the very next event; backwards for inverse
actions). Breakpoint targets are drawn evenly over distance buckets, so long jumps are measured
as often as short ones; items are then drawn evenly per action and bucket.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neural_debugger.model_backend.backend import (
    BackendError,
    DecodeOptions,
    History,
    PredictionError,
)
from neural_debugger.model_backend.generate import greedy_state
from neural_debugger.model_backend.llama import load_pretrained
from neural_debugger.model_backend.local import LoadedModel, LocalSession, load_model
from neural_debugger.model_backend.prompt import RESERVE
from neural_debugger.model_backend.quantize import WEIGHT_NAMES
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.protocol import (
    Action,
    ActionKind,
    Nesting,
    ParseError,
    State,
    StateKind,
    encode_prompt,
    parse_state,
    parse_trajectory,
    standalone,
)
from neural_debugger.tracer.events import ExitKind
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import TracerFailure
from neural_debugger.tracer.record import record as record_trace
from neural_debugger.tracer.sampler import PAPER, PAPER_INVERSE, sample
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.programs.split import function_of
from neural_debugger.training.shards import read_shards

COMPONENTS = ("exact", "event", "source", "locals", "value")
FORWARD_JUMPS = (ActionKind.STEP_OVER, ActionKind.STEP_RETURN, ActionKind.BREAKPOINT)
INVERSE_JUMPS = (ActionKind.INV_STEP_OVER, ActionKind.INV_STEP_CALL)
# Distance buckets (events moved through), doubling: 1, 2-3, 4-7, 8-15, 16-31, 32 and more.
Bucket = tuple[int, int | None]  # the lowest and highest distance in it (None: no limit)
BUCKETS: tuple[Bucket, ...] = ((1, 1), (2, 3), (4, 7), (8, 15), (16, 31), (32, None))
PROBES_PER_TRAJECTORY = 4  # prefixes of each sampled trajectory the jumps are asked from


@dataclass(frozen=True)
class Item:
    action: str
    prompt: str
    target: State
    distance: int  # events the action moves through in the run (1: the next event)
    history: History | None = None  # the same prompt as a history, for the engine
    next_action: Action | None = None
    origin: str = "generated"  # the program's origin in the data (``training.programs.base``)


def trained_functions(train_dir: Path) -> frozenset[str]:
    """The real functions (``module.function``) that training shards hold programs of."""
    names = (function_of(record["origin"]) for record in read_shards(train_dir))
    return frozenset(name for name in names if name is not None)


def load_items(
    data_dir: Path,
    per_action: int,
    seed: int,
    max_prompt_chars: int,
    origins: tuple[str, ...] | None = None,
    unseen: Path | None = None,
    beyond_window: Callable[[str], bool] | None = None,
) -> list[Item]:
    """Up to ``per_action`` prediction items for every action, drawn from the held-out shards.

    ``origins``: only trajectories whose origin starts with one of these (``generated``,
    ``stdlib``, ``package``, ``repo``). ``unseen``: training shards; real code of a function
    that appears there is left out, so what remains is held out by function.
    ``beyond_window``: keep only the prompts it accepts (those too long for the model's window,
    which a session shortens by dropping its oldest states) instead of those up to
    ``max_prompt_chars``.
    """
    seen = trained_functions(unseen) if unseen is not None else frozenset()
    by_action: dict[str, list[Item]] = defaultdict(list)
    for record in read_shards(data_dir):
        origin = record.get("origin", "generated")
        if origins is not None and origin.partition(":")[0] not in origins:
            continue
        if function_of(origin) in seen:
            continue
        trajectory = parse_trajectory(record["text"])
        for k in range(1, len(trajectory.states)):
            action = trajectory.actions[k - 1]
            prompt = encode_prompt(trajectory.code, trajectory.states[:k], trajectory.actions[:k])
            if beyond_window is None and len(prompt) > max_prompt_chars:
                break
            if beyond_window is not None and not beyond_window(prompt):
                continue
            history = History(trajectory.code, trajectory.states[:k], trajectory.actions[: k - 1])
            by_action[action.kind.value].append(
                Item(action.kind.value, prompt, trajectory.states[k], 0, history, action, origin)
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
    return score_state(predicted, target)


def score_state(predicted: State | None, target: State) -> dict[str, Any]:
    """:func:`score` of a state already parsed (``None``: no state came out)."""
    if predicted is None:
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


def _constrained(
    loaded: LoadedModel, item: Item, check: int = 1, samples: int = 1, temperature: float = 0.0
) -> str:
    """The embedded engine's greedy state under the grammar (a budget overrun counts as wrong);
    ``check`` > 1: a step back keeps the best of that many candidates by the forward check;
    ``samples`` > 1: the majority of that many states drawn at ``temperature``."""
    assert item.history is not None and item.next_action is not None
    session = LocalSession(loaded, item.history.code)
    options = DecodeOptions(check=check, seed=0, samples=samples, temperature=temperature)
    try:
        return session.predict_now(item.history, item.next_action, options).text
    except BackendError as err:
        return getattr(err, "text", "")


def _stepped(loaded: LoadedModel, item: Item, budget: int) -> State | None:
    """A breakpoint or a step out as a debug session answers it (:func:`~neural_debugger.
    model_backend.session.resume`, :func:`~neural_debugger.model_backend.session.finish`):
    greedy steps into under the grammar until one lands where the action does (a breakpoint:
    a state on its line, the language's first later node at any depth on it; a step out: the
    frame's return), at most ``budget`` of them, then the action's one jump if none got there
    (a breakpoint's from the last step, a step out's from the start, as the session's own);
    steps that end the program short of it are dropped and the jump answers from the start.
    Returns that state (a breakpoint's with its whole locals, as the jump shows them);
    ``None`` if a prediction failed (a breakpoint's step, or the jump)."""
    assert item.history is not None and item.next_action is not None
    session = LocalSession(loaded, item.history.code)
    options = DecodeOptions(seed=0)
    states, actions = list(item.history.states), list(item.history.actions)
    into, nesting = Action(kind=ActionKind.STEP_INTO), Nesting()
    jump = item.next_action
    if jump.kind is ActionKind.STEP_RETURN and states[-1].kind is StateKind.RETURN:
        budget = 0  # from a return, the jump itself (to the caller's end), as the session's own
    from_last_step = False  # where the jump starts: the last step, or where the steps began
    try:
        for _ in range(budget):
            history = History(item.history.code, tuple(states), tuple(actions))
            state = session.predict_now(history, into, options).state
            if jump.kind is ActionKind.BREAKPOINT and state.src == jump.target:
                return standalone((*states, state), len(states))
            if jump.kind is ActionKind.STEP_RETURN and nesting.returned(state):
                return state
            if state.kind.is_exit:  # short of the line: the steps are dropped, the jump answers
                break
            states.append(state)
            actions.append(into)
        else:  # out of steps: a continue jumps on from the last, a step out from where it began
            from_last_step = jump.kind is ActionKind.BREAKPOINT
    except PredictionError:  # a step the model could not write: a step out jumps instead
        if jump.kind is ActionKind.BREAKPOINT:
            return None
    except BackendError:
        return None
    if not from_last_step:
        states, actions = list(item.history.states), list(item.history.actions)
    try:
        history = History(item.history.code, tuple(states), tuple(actions))
        return session.predict_now(history, jump, options).state
    except BackendError:
        return None


STEPPED = (ActionKind.BREAKPOINT.value, ActionKind.STEP_RETURN.value)
STEPPED_WORDS = "breakpoints and step outs stepped"  # in a stepped run's decoding


def predict_and_score(
    items: Iterable[Item],
    model_dir: Path,
    device: str = "cpu",
    constrained: bool = False,
    check: int = 1,
    stepped: int = 0,
    samples: int = 1,
    temperature: float = 0.0,
    quantize: str | None = None,
    step: str | None = None,
) -> list[dict[str, Any]]:
    """Each item's score (see :func:`score`); ``constrained``: decoded by the embedded engine
    under the grammar (what a debug session shows) instead of unconstrained greedy (the raw
    model), with steps back checked forwards over ``check`` candidates when above 1,
    breakpoints and step outs reached by up to ``stepped`` steps into (:func:`_stepped`) when
    above 0, and
    the majority of ``samples`` states drawn at ``temperature`` kept when above 1;
    ``quantize``: the embedded engine's weights (``int8``, ``none``; default ``$NDB_QUANTIZE``);
    ``step``: what runs its short passes (``native``, ``torch``; default ``$NDB_STEP``)."""
    folder = Path(model_dir).resolve()
    loaded = load_model(folder, device, quantize, step) if constrained else None
    if loaded is None:
        model = load_pretrained(model_dir, device=device)
        tokenizer = load_tokenizer(model_dir)
    scores = []
    for item in items:
        if loaded is not None and stepped and item.action in STEPPED:
            scores.append(score_state(_stepped(loaded, item, stepped), item.target))
            continue
        if loaded is not None:
            text = _constrained(loaded, item, check, samples, temperature)
        else:
            text = greedy_state(model, tokenizer, item.prompt)
        scores.append(score(text, item.target))
    return scores


def rates(scores: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per component (and ``parsed``): how many items it applies to and the share right."""
    out = {}
    for name in ("parsed", *COMPONENTS):
        values = [s[name] for s in scores if name in s]
        if values:
            out[name] = {"n": len(values), "rate": sum(values) / len(values)}
    return out


def model_window(model_dir: Path) -> int:
    """The model's context window in tokens (its ``config.json``)."""
    import json

    config = json.loads((Path(model_dir) / "config.json").read_text())
    return int(config["max_position_embeddings"])


def prompt_limit(model_dir: Path) -> int:
    """Prompt characters that leave the model room to answer (about two characters a token)."""
    return model_window(model_dir) * 2


def outgrows_window(model_dir: Path) -> Callable[[str], bool]:
    """Whether a prompt leaves less than the engine's answer reserve of the model's window, so
    that a session must drop its oldest states to ask it."""
    room = model_window(model_dir) - RESERVE
    tokenizer = load_tokenizer(model_dir)

    def beyond(prompt: str) -> bool:
        if len(prompt) <= room:  # a token holds at least one character
            return False
        return len(tokenizer.encode(prompt, add_special_tokens=False).ids) > room

    return beyond


def evaluate(
    model_dir: Path,
    data_dir: Path,
    per_action: int = 100,
    seed: int = 0,
    device: str = "cpu",
    constrained: bool = False,
    origins: tuple[str, ...] | None = None,
    unseen: Path | None = None,
    long_sessions: bool = False,
    check: int = 1,
    actions: tuple[str, ...] | None = None,
    stepped: int = 0,
    samples: int = 1,
    temperature: float = 0.0,
    quantize: str | None = None,
    step: str | None = None,
) -> dict[str, Any]:
    """Exact match per action and per component, on held-out shards (see :func:`load_items`
    for ``origins`` and ``unseen``). ``long_sessions``: only predictions whose whole history
    does not fit the model's window, decoded by the embedded engine, which drops the oldest
    states as a long debug session does. ``check`` > 1 (constrained): steps back keep the best
    of that many candidates by the forward check. ``stepped`` > 0 (constrained): breakpoints
    and step outs are reached as a debug session reaches them, by up to that many steps into,
    then one jump (:func:`_stepped`). ``samples`` > 1 (constrained): the majority of that many
    states drawn at ``temperature``, the paper's vote. ``actions``: only these (the same items
    as a run over all actions). ``quantize``, ``step`` (constrained): the embedded engine's
    weights and what runs its short passes."""
    beyond = outgrows_window(model_dir) if long_sessions else None
    items = load_items(data_dir, per_action, seed, prompt_limit(model_dir), origins, unseen, beyond)
    if actions is not None:
        items = [item for item in items if item.action in actions]
    constrained = constrained or long_sessions or check > 1 or stepped > 0 or samples > 1
    constrained = constrained or quantize not in (None, "none") or step is not None
    scores = predict_and_score(
        items, model_dir, device, constrained, check, stepped, samples, temperature, quantize, step
    )
    decoding = "constrained (embedded engine)" if constrained else "unconstrained greedy"
    if check > 1:
        decoding += f", steps back checked forwards ({check} candidates)"
    if stepped > 0:
        decoding += f", {STEPPED_WORDS} (up to {stepped} steps into, then one jump)"
    if samples > 1:
        decoding += f", majority of {samples} samples at temperature {temperature:g}"
    weights = passes = None
    if constrained:  # the weights and passes the engine loaded (cached: no second load)
        loaded = load_model(Path(model_dir).resolve(), device, quantize, step)
        weights, passes = WEIGHT_NAMES[loaded.weights], loaded.step
    by_action: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item, result in zip(items, scores, strict=True):
        by_action[item.action].append(result)
    return {
        "model": str(model_dir),
        "data": str(data_dir),
        "per_action": per_action,
        "decoding": decoding,
        "weights": weights,
        "step": passes,
        "origins": list(origins) if origins else "all",
        "unseen_in": str(unseen) if unseen else None,
        "prompts": "beyond the window (oldest states dropped)" if long_sessions else "whole",
        "results": {action: rates(by_action[action]) for action in sorted(by_action)},
    }


# ---- the horizon ---------------------------------------------------------------------------


def bucket_label(bucket: Bucket) -> str:
    low, high = bucket
    return str(low) if low == high else (f"{low}+" if high is None else f"{low}-{high}")


def bucket_of(distance: int) -> Bucket:
    for low, high in BUCKETS:
        if distance >= low and (high is None or distance <= high):
            return (low, high)
    raise ValueError(f"a jump moves at least one event, not {distance}")


def _breakpoint_probe(tree: StateTree, i: int, rng: random.Random) -> Action | None:
    """A breakpoint at the line of a later line event, its distance drawn bucket first, so that
    long jumps are as common as short ones (the first later event on that line is where it
    stops, which can be nearer)."""
    later = [n.index for n in tree.nodes[i + 1 :] if n.kind is StateKind.LINE]
    by_bucket: dict[Bucket, list[int]] = defaultdict(list)
    for j in later:
        by_bucket[bucket_of(j - i)].append(j)
    if not by_bucket:
        return None
    chosen = by_bucket[rng.choice(sorted(by_bucket, key=lambda b: b[0]))]
    event = tree.nodes[rng.choice(chosen)].event
    assert event is not None
    return Action(kind=ActionKind.BREAKPOINT, target=event.src)


def horizon_items(
    programs: int,
    seed: int,
    per_bucket: int,
    max_prompt_chars: int,
    exclude: frozenset[str] = frozenset(),
) -> list[Item]:
    """Up to ``per_bucket`` jump items per action and distance bucket, from fresh programs."""
    from neural_debugger.training.data import TRACE_LIMITS, source_hash
    from neural_debugger.training.programs import generate_programs

    rng = random.Random(seed)
    pools: dict[tuple[str, Bucket], list[Item]] = defaultdict(list)
    for index, program in enumerate(generate_programs(seed, programs)):
        if source_hash(program.source) in exclude:
            continue
        loaded = Program(path=f"program_{index}.py", source=program.source, entry=program.entry)
        try:
            trace = record_trace(loaded, TRACE_LIMITS)
        except (TracerFailure, ValueError, SyntaxError):
            continue
        if not trace.events:
            continue
        forward = StateTree.forward(loaded, trace)
        trees = [forward]
        if trace.exit is not ExitKind.NEVER:
            trees.append(StateTree.inverse_of(loaded, trace, forward=forward))
        for tree in trees:
            walk = sample(tree, PAPER_INVERSE if tree.inverse else PAPER, rng, max_states=24)
            trajectory = walk.trajectory
            prefixes = list(range(len(walk.nodes) - 1))  # every state but the exit
            for k in sorted(rng.sample(prefixes, min(PROBES_PER_TRAJECTORY, len(prefixes)))):
                i = walk.nodes[k]
                for kind in INVERSE_JUMPS if tree.inverse else FORWARD_JUMPS:
                    if kind is ActionKind.BREAKPOINT:
                        action = _breakpoint_probe(tree, i, rng)
                        if action is None:
                            continue
                    else:
                        action = Action(kind=kind)
                    j = tree.next(i, action)
                    states, actions = trajectory.states[: k + 1], trajectory.actions[:k]
                    prompt = encode_prompt(trajectory.code, states, (*actions, action))
                    if len(prompt) > max_prompt_chars:
                        continue
                    item = Item(
                        kind.value,
                        prompt,
                        tree.state(j, i, action),
                        j - i,
                        History(trajectory.code, states, actions),
                        action,
                    )
                    pools[(kind.value, bucket_of(j - i))].append(item)
    items: list[Item] = []
    for key in sorted(pools, key=lambda k: (k[0], k[1][0])):
        pool = pools[key]
        rng.shuffle(pool)
        items.extend(pool[:per_bucket])
    return items


def horizon(
    model_dir: Path,
    programs: int = 200,
    seed: int = 7001,
    per_bucket: int = 12,
    exclude: Path | None = None,
    device: str = "cpu",
    constrained: bool = False,
) -> dict[str, Any]:
    """Accuracy per jump action and distance bucket; ``exclude``: training shards whose programs
    are left out."""
    seen = frozenset(r["source_hash"] for r in read_shards(exclude)) if exclude else frozenset()
    items = horizon_items(programs, seed, per_bucket, prompt_limit(model_dir), seen)
    scores = predict_and_score(items, model_dir, device, constrained)
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for item, result in zip(items, scores, strict=True):
        grouped[item.action][bucket_label(bucket_of(item.distance))].append(result)
    labels = [bucket_label(b) for b in BUCKETS]
    return {
        "model": str(model_dir),
        "programs": programs,
        "seed": seed,
        "per_bucket": per_bucket,
        "excluded": str(exclude) if exclude else None,
        "decoding": "constrained (embedded engine)" if constrained else "unconstrained greedy",
        "buckets": labels,
        "results": {
            action: {label: rates(row[label]) for label in labels if row[label]}
            for action, row in sorted(grouped.items())
        },
        "records": [
            {"action": item.action, "distance": item.distance, **result}
            for item, result in zip(items, scores, strict=True)
        ],
    }


def format_horizon(results: dict[str, Any]) -> str:
    """Exact match per action (rows) and distance bucket (columns), with the item counts."""
    labels = results["buckets"]
    lines = [f"{'action':15s} " + " ".join(f"{label:>11s}" for label in labels)]
    for action, row in results["results"].items():
        cells = []
        for label in labels:
            cell = row.get(label)
            cells.append(
                f"{cell['exact']['rate'] * 100:5.1f}% ({cell['exact']['n']:2d})"
                if cell
                else "-".rjust(11)
            )
        lines.append(f"{action:15s} " + " ".join(f"{c:>11s}" for c in cells))
    return "\n".join(lines)


def format_table(results: dict[str, Any]) -> str:
    lines = [f"{'action':15s} {'n':>5s} " + " ".join(f"{c:>7s}" for c in (*COMPONENTS, "parsed"))]
    for action, row in results["results"].items():
        cells = [
            f"{row[c]['rate'] * 100:6.1f}%" if c in row else "      -"
            for c in (*COMPONENTS, "parsed")
        ]
        lines.append(f"{action:15s} {row['exact']['n']:5d} " + " ".join(cells))
    return "\n".join(lines)
