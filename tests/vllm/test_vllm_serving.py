"""vLLM as a serving engine: one request per state with the grammar in the server, the prefix
cache used (by the server's own counters), many sessions at once, and a server that dies."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

from neural_debugger.model_backend.backend import BackendUnavailable, Engine
from neural_debugger.model_backend.engines import make_engine
from neural_debugger.model_backend.grammar_request import XARG
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.model_backend.vllm_engine import VllmEngine, VllmSession
from neural_debugger.protocol import Action, ActionKind, State
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = [ActionKind.STEP_INTO, ActionKind.STEP_INTO, ActionKind.STEP_OVER] * 3
CASES = [
    ("examples/bubble_sort.py", "bubble_sort([3, 1, 2])"),
    ("examples/running_total.py", "running_total([4, 5])"),
    ("examples/bubble_sort.py", "bubble_sort([9, 4, 7, 1])"),
    ("examples/running_total.py", "running_total([1, 2, 3])"),
    ("examples/bubble_sort.py", "bubble_sort([2, 1])"),
    ("examples/running_total.py", "running_total([10, -3, 8])"),
]


async def _states(engine: Engine, path: str, entry: str, spans: list | None = None) -> list[State]:
    """The states of one session following SCRIPT (``spans``: when each step ran)."""
    session = await DebugSession.open(load_program(ROOT / path, entry), engine)
    states = []
    for kind in SCRIPT:
        if session.finished:
            break
        start = time.monotonic()
        states.append((await session.step(Action(kind=kind))).state)
        if spans is not None:
            spans.append((start, time.monotonic(), entry))
    return states


async def test_one_request_per_state_and_the_prefix_cache_is_hit(vllm_url: str) -> None:
    engine = VllmEngine([vllm_url])
    program = load_program(ROOT / "examples/running_total.py", "running_total([4, 5, 6])")
    session = await DebugSession.open(program, engine)
    backend = session.backend
    assert isinstance(backend, VllmSession)
    before = await engine.counters(vllm_url)
    steps = 0
    for kind in SCRIPT:
        if session.finished:
            break
        stop = await session.step(Action(kind=kind))
        assert stop.prediction is not None and stop.prediction.model_calls == 1
        steps += 1
    after = await engine.counters(vllm_url)
    await engine.aclose()
    assert steps >= 5
    assert backend.requests == steps  # the engine's count
    assert after["request_success_total"] - before["request_success_total"] == steps  # vLLM's
    # from the second step on, the server found the session's prompt prefix in its cache
    assert len(backend.cached_tokens) == steps and all(n > 0 for n in backend.cached_tokens[1:])
    hits = after["prefix_cache_hits_total"] - before["prefix_cache_hits_total"]
    assert hits >= sum(backend.cached_tokens[1:]) > 0


async def test_sessions_at_once_on_one_server_keep_to_their_own_programs(vllm_url: str) -> None:
    local = make_engine("local")
    alone = [await _states(local, path, entry) for path, entry in CASES]
    engine = VllmEngine([vllm_url])
    together: list[list[State]] = [[] for _ in CASES]
    spans: list[tuple[float, float, str]] = []

    async def run(k: int) -> None:
        together[k] = await _states(engine, *CASES[k], spans)

    async with anyio.create_task_group() as group:
        for k in range(len(CASES)):
            group.start_soon(run, k)
    await engine.aclose()
    assert together == alone  # greedy: each session's own states, as the embedded engine's
    overlapping = sum(
        1 for a in spans for b in spans if a[2] != b[2] and a[0] < b[0] < a[1]
    )  # steps of other sessions that started while one was in flight: batched together
    assert overlapping >= len(CASES)


async def test_a_server_that_dies_mid_session_fails_clearly_then_over(
    vllm_url: str, spare_vllm: tuple[str, Callable[[], None]]
) -> None:
    program = load_program(ROOT / "examples/bubble_sort.py", "bubble_sort([3, 1, 2])")
    local = await DebugSession.open(program, make_engine("local"))
    spare, kill = spare_vllm
    lone = await DebugSession.open(program, VllmEngine([spare]))
    session = await DebugSession.open(program, VllmEngine([spare, vllm_url]))
    backend = session.backend
    assert isinstance(backend, VllmSession) and backend.server == 0  # on the spare
    for kind in SCRIPT[:2]:
        expected = (await local.step(Action(kind=kind))).state
        assert (await lone.step(Action(kind=kind))).state == expected
        assert (await session.step(Action(kind=kind))).state == expected
    kill()
    with pytest.raises(BackendUnavailable, match=f"cannot reach the vLLM server at {spare}"):
        await lone.step(Action(kind=SCRIPT[2]))
    assert len(lone.states) == 3 and not lone.finished  # the failed step changed nothing
    for kind in SCRIPT[2:6]:
        if local.finished:
            break
        expected = (await local.step(Action(kind=kind))).state
        assert (await session.step(Action(kind=kind))).state == expected
    assert backend.server == 1  # it went on on the server that lives


async def test_the_server_refuses_unreadable_grammar_arguments(vllm_url: str) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        model = (await client.get(vllm_url + "/v1/models")).json()["data"][0]["id"]
        body = {"model": model, "prompt": [5, 6, 7], "max_tokens": 3, "temperature": 0}
        bad = await client.post(
            vllm_url + "/v1/completions", json={**body, "vllm_xargs": {XARG: "{not json"}}
        )
        assert bad.status_code == 400 and "cannot read the grammar request" in bad.text
        plain = await client.post(  # no grammar asked: the model writes what it likes
            vllm_url + "/v1/completions", json={**body, "ignore_eos": True}
        )
        assert plain.status_code == 200 and plain.json()["usage"]["completion_tokens"] == 3
