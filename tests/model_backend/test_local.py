"""The embedded engine on the shipped model: cache reuse, constraints, budget, cancel, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest
import torch

from neural_debugger.model_backend.backend import (
    BackendError,
    BudgetExceeded,
    DecodeOptions,
    History,
    ModelFolderError,
)
from neural_debugger.model_backend.draft import DRAFT_TOKENS
from neural_debugger.model_backend.llama import (
    TOKENIZER_FINGERPRINT,
    LlamaForCausalLM,
    ModelConfig,
    save_pretrained,
)
from neural_debugger.model_backend.local import LocalEngine, LocalSession, load_model
from neural_debugger.model_backend.session import DebugSession, first_state
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.tracer.program import load_program
from neural_debugger.training.tokenizer import save_tokenizer, train_tokenizer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"
PROGRAM = load_program(EXAMPLE, "bubble_sort([3, 1, 2])")
STEP_INTO = Action(kind=ActionKind.STEP_INTO)
STEP_OVER = Action(kind=ActionKind.STEP_OVER)


def _fresh(engine: LocalEngine) -> LocalSession:
    return LocalSession(engine.loaded, PROGRAM.context)


async def _walk(session: DebugSession, steps: int) -> None:
    for i in range(steps):
        if session.finished:
            break
        await session.step(STEP_INTO if i % 3 else STEP_OVER)


# the default (float16 weights, the native step on x86-64), float16 in torch's pass, float32, int8
WEIGHTS = ("auto", "fp16/torch", "none", "int8")


def _engine(weights: str, monkeypatch: pytest.MonkeyPatch) -> LocalEngine:
    quantize, _, step = weights.partition("/")
    monkeypatch.setenv("NDB_STEP", step or "auto")
    return LocalEngine(quantize=quantize)


@pytest.mark.parametrize("weights", WEIGHTS)
async def test_cached_steps_equal_steps_encoded_from_scratch(weights: str, monkeypatch) -> None:
    engine = _engine(weights, monkeypatch)
    session = await DebugSession.open(PROGRAM, engine)
    await _walk(session, 8)
    assert len(session.stops) > 4
    for i, stop in enumerate(session.stops[1:], start=1):
        history = History(
            PROGRAM.context, tuple(session.states[:i]), tuple(session.actions[: i - 1])
        )
        alone = _fresh(engine).predict_now(history, session.actions[i - 1], DecodeOptions())
        assert alone.state == stop.state
        assert alone.confidence.event == pytest.approx(stop.confidence.event, rel=1e-3)
    backend = session.backend
    assert isinstance(backend, LocalSession)
    # each step fed its action and the previous state only, never the code again
    assert backend.stats["reencoded"] == 0
    assert backend.stats["fed"] < len(backend.ids) + 40 * len(session.stops)


async def test_constraints_force_tokens_and_report_confidence() -> None:
    session = await DebugSession.open(PROGRAM, LocalEngine())
    stop = await session.step(STEP_INTO)
    prediction = stop.prediction
    assert prediction is not None and prediction.forced > 0
    # forced tokens are fed with the next chosen one: one model call per chosen token at most
    assert prediction.model_calls <= prediction.generated + 1
    assert stop.state.src in PROGRAM.context.split("\n")
    confidence = stop.confidence
    assert 0 < confidence.event <= 1 and 0 < confidence.overall <= confidence.event
    assert set(confidence.values) == set(stop.state.locals or {})


@pytest.mark.parametrize("weights", WEIGHTS)
async def test_drafted_tokens_change_the_forward_passes_never_the_states(
    weights: str, monkeypatch
) -> None:
    """The same states decoded with drafts (each forward pass also checks drafted tokens) and
    without (one forward pass per chosen token), greedy and sampled, on the shipped model, with
    each way of storing its weights."""
    engine = _engine(weights, monkeypatch)
    session = await DebugSession.open(PROGRAM, engine)
    await _walk(session, 10)
    assert len(session.stops) > 5
    calls = {0: 0, DRAFT_TOKENS: 0}
    for i in range(1, len(session.stops)):
        history = History(
            PROGRAM.context, tuple(session.states[:i]), tuple(session.actions[: i - 1])
        )
        action = session.actions[i - 1]
        made = {}
        for draft in calls:
            prediction = LocalSession(engine.loaded, PROGRAM.context, draft=draft).predict_now(
                history, action, DecodeOptions()
            )
            calls[draft] += prediction.model_calls
            made[draft] = prediction
        plain, drafted = made[0], made[DRAFT_TOKENS]
        assert drafted.state == plain.state == session.stops[i].state
        assert (drafted.generated, drafted.forced) == (plain.generated, plain.forced)
        # float weights: the same logits up to rounding; int8: a rounding difference before a
        # layer can move an input across an 8-bit step, which moves a probability a little
        rel = 0.1 if engine.loaded.weights == "int8" else 1e-3
        assert drafted.confidence.overall == pytest.approx(plain.confidence.overall, rel=rel)
    assert calls[DRAFT_TOKENS] < 0.8 * calls[0]
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    sampled = DecodeOptions(temperature=1.0, seed=11)
    states = [
        LocalSession(engine.loaded, PROGRAM.context, draft=d).predict_now(
            history, STEP_INTO, sampled
        )
        for d in (0, DRAFT_TOKENS)
    ]
    assert states[0].state == states[1].state


async def test_step_back_and_edits_reuse_the_cached_prefix() -> None:
    session = await DebugSession.open(PROGRAM, LocalEngine())
    await _walk(session, 4)
    backend = session.backend
    assert isinstance(backend, LocalSession)
    fed = backend.stats["fed"]
    session.step_back()
    await session.step(STEP_INTO)
    assert backend.stats["fed"] - fed < 80  # the new action and the state, not the code
    if session.current.locals:
        name = next(iter(session.current.locals))
        session.set_value(name, "[7, 7, 7]")
        stop = await session.step(STEP_INTO)
        assert session.states[-2].locals[name] == "[7, 7, 7]"
        assert stop.state is session.states[-1]
    assert backend.stats["reencoded"] == 0


async def test_budget_cancellation_and_sampling_leave_the_session_usable() -> None:
    engine = LocalEngine()
    backend = _fresh(engine)
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    with pytest.raises(BudgetExceeded, match="budget of 3 tokens"):
        await backend.predict(history, STEP_INTO, DecodeOptions(max_new_tokens=3))
    greedy = await backend.predict(history, STEP_INTO, DecodeOptions())
    with anyio.move_on_after(0.001):
        await backend.predict(history, STEP_INTO, DecodeOptions(samples=8, temperature=1.0))
        pytest.fail("the prediction was not cancelled")
    again = await backend.predict(history, STEP_INTO, DecodeOptions())
    assert again.state == greedy.state
    sampled = DecodeOptions(temperature=1.0, samples=5, seed=3)
    first = await backend.predict(history, STEP_INTO, sampled)
    second = await backend.predict(history, STEP_INTO, sampled)
    assert first.state == second.state and first.votes == second.votes
    assert first.votes is not None and first.votes[1] == 5 and first.votes[0] >= 1


async def test_a_long_session_slides_its_window() -> None:
    engine = LocalEngine()
    backend = _fresh(engine)
    line = State(
        kind=StateKind.LINE,
        src="            if result[j] > result[j + 1]:",
        locals={"items": "[3, 1, 2]", "result": "[1, 2, 3]", "swaps": "2", "i": "0", "j": "1"},
    )
    states = (first_state(PROGRAM), *[line] * 60)
    actions = (STEP_INTO,) * 60
    history = History(PROGRAM.context, states, actions)
    options = DecodeOptions(max_new_tokens=128)
    ids = backend.prompt_ids(history, STEP_INTO, options.max_new_tokens)
    assert len(ids) <= engine.loaded.window - options.max_new_tokens
    prediction = await backend.predict(history, STEP_INTO, options)
    assert prediction.state.kind in StateKind


def _tiny_model(folder: Path, vocab: int = 400, window: int = 512, kind: str = "bpe") -> None:
    texts = [EXAMPLE.read_text(), '<|line_sep|>\n<|arg_sep|>{"a": "1"}<|src_sep|>    x = 1\n']
    tokenizer = train_tokenizer(texts * 20, vocab, kind)
    save_tokenizer(tokenizer, folder, window)
    torch.manual_seed(0)
    config = ModelConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=window,
    )
    save_pretrained(LlamaForCausalLM(config), folder)


@pytest.mark.parametrize("kind", ["bpe", "value"])
async def test_an_untrained_model_still_writes_only_states_that_parse(
    tmp_path: Path, kind: str
) -> None:
    _tiny_model(tmp_path, kind=kind)
    backend = await LocalEngine(tmp_path).open(PROGRAM)
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    lines = PROGRAM.context.split("\n")
    kinds = set()
    for seed in range(30):
        options = DecodeOptions(temperature=1.0, seed=seed, max_new_tokens=160)
        try:
            prediction = await backend.predict(history, STEP_INTO, options)
        except BudgetExceeded:  # a random model may ramble inside a string: a clear error
            continue
        kinds.add(prediction.state.kind)
        assert prediction.state.src is None or prediction.state.src in lines
    assert len(kinds) >= 3  # calls, lines, returns, exits: all written in a form that parses


def test_bad_model_folders_give_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFolderError, match="does not exist"):
        load_model(tmp_path / "nothing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelFolderError, match=r"no config\.json"):
        load_model(empty)
    corrupt = tmp_path / "corrupt"
    shutil.copytree(default_model_dir(), corrupt)
    shard = sorted(corrupt.glob("model*.safetensors"))[0]  # one file, or the first shard
    shard.write_bytes(b"\x00" * 100)
    with pytest.raises(ModelFolderError, match="not a readable safetensors"):
        load_model(corrupt)
    swapped = tmp_path / "swapped"  # same vocabulary size, another training's tokenizer
    _tiny_model(swapped)
    other = train_tokenizer(["def g(y):\n    return [y, y]\n"] * 40, 400)
    save_tokenizer(other, swapped, 512)
    with pytest.raises(ModelFolderError, match="not the one these weights were trained with"):
        load_model(swapped)
    mixed = tmp_path / "mixed"  # no fingerprint recorded: the sizes still tell
    _tiny_model(mixed)
    config = json.loads((mixed / "config.json").read_text())
    del config[TOKENIZER_FINGERPRINT]
    (mixed / "config.json").write_text(json.dumps(config))
    save_tokenizer(load_tokenizer(default_model_dir()), mixed, 512)
    with pytest.raises(ModelFolderError, match="do not belong together"):
        load_model(mixed)
    no_tokens = tmp_path / "plain"
    _tiny_model(no_tokens)
    (no_tokens / "tokenizer.json").unlink()
    with pytest.raises(ModelFolderError, match=r"no tokenizer\.json"):
        load_model(no_tokens)


async def test_a_closed_session_frees_its_cache_and_says_so() -> None:
    backend = _fresh(LocalEngine())
    history = History(PROGRAM.context, (first_state(PROGRAM),), ())
    await backend.predict(history, STEP_INTO, DecodeOptions())
    await backend.aclose()
    assert backend.cache.keys == [] and backend.ids == []
    with pytest.raises(BackendError, match="closed"):
        await backend.predict(history, STEP_INTO, DecodeOptions())
