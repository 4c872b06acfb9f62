"""Many clients at once on one ``ndb dap --port`` server, and clients that vanish mid-prediction.

Over TCP every connection has its own adapter and session while the engines are shared, so
the failures that matter are a stop reaching the wrong client, a session that never completes
when others are busy, and one client's abrupt exit (mid-prediction, mid-message) taking the
server or the shared engine down with it. Each session here debugs the same program on its own
list, chosen so that no other session's list (sorted or not) can be mistaken for it.
"""

from __future__ import annotations

import ast
import itertools
import os
import random
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from launching import EXAMPLE, WAIT, open_session

from neural_debugger.evaluation.dap_client import DapClient, tcp_server

SESSIONS = 20
SCRIPT = ["stepIn", "stepIn", "next", "next", "next", "stepIn", "next"]  # entry -> bubble_sort
BUDGET = 30.0  # seconds for all the sessions together
IDLE_CPU_S = 0.2  # CPU seconds an idle server may use in one second


def own_lists(count: int) -> list[list[int]]:
    """Lists of four numbers, no two with the same numbers, none already sorted."""
    rng = random.Random(11)
    lists = []
    for chosen in rng.sample(list(itertools.combinations(range(1, 40), 4)), count):
        items = list(chosen)
        while items == sorted(items):
            rng.shuffle(items)
        lists.append(items)
    return lists


async def scripted_session(dap: DapClient, items: list[int]) -> list[dict[str, str]]:
    """An oracle session on ``bubble_sort(items)``: the locals shown at each stop of SCRIPT."""
    await open_session(dap, entry=f"bubble_sort({items})", stopOnEntry=True)
    assert (await dap.stopped())["reason"] == "entry"
    seen = []
    for action in SCRIPT:
        await dap.request(action, threadId=1)
        found = await dap.event("stopped", "exited")
        assert found["event"] == "stopped", (items, action, found)
        seen.append({name: v["value"] for name, v in (await dap.locals()).items()})
    await dap.request("disconnect")
    return seen


def check_own_values(items: list[int], seen: list[dict[str, str]], others: set[str]) -> None:
    """Every stop shows this session's values (the oracle's are exact), none of another's."""
    assert len(seen) == len(SCRIPT)
    inside = seen[1:]  # after the second stepIn the stop is in bubble_sort
    assert all(stop.get("items") == repr(items) for stop in inside), (items, seen)
    for stop in inside:
        if "result" in stop:  # the working copy: a permutation of this session's list
            assert sorted(ast.literal_eval(stop["result"])) == sorted(items), (items, stop)
    for stop in seen:
        assert not others & set(stop.values()), (items, stop)


def reprs(lists: list[list[int]]) -> set[str]:
    return {repr(items) for items in lists} | {repr(sorted(items)) for items in lists}


async def test_many_clients_at_once_each_see_only_their_own_session(
    connect: Callable[[], Awaitable[DapClient]],
) -> None:
    lists = own_lists(SESSIONS)
    results: dict[int, list[dict[str, str]]] = {}

    async def one(index: int) -> None:
        results[index] = await scripted_session(await connect(), lists[index])

    with anyio.fail_after(BUDGET):
        async with anyio.create_task_group() as tasks:
            for index in range(SESSIONS):
                tasks.start_soon(one, index)
    assert sorted(results) == list(range(SESSIONS)), "every session completes"
    for index, seen in results.items():
        others = reprs(lists[:index] + lists[index + 1 :])
        check_own_values(lists[index], seen, others)


async def _abandon(
    port: int, *, raw: bytes = b"", requests: tuple[tuple[str, dict[str, Any]], ...] = ()
) -> None:
    """A client that sends ``raw`` bytes or ``requests`` and closes its socket at once, reading
    nothing."""
    dap = await DapClient.connect(port, timeout=WAIT)
    if raw:
        await dap.raw(raw)
    for command, arguments in requests:
        await dap.send(command, **arguments)
    await dap.aclose()


@dataclass
class Served:
    """A server of this module's own: its port, and its process (for its CPU time)."""

    port: int
    process: subprocess.Popen[bytes]
    clients: list[DapClient]

    async def client(self) -> DapClient:
        self.clients.append(await DapClient.connect(self.port, timeout=WAIT, keep_output=True))
        return self.clients[-1]

    def cpu_seconds(self) -> float:
        """User and system time of the server process so far (Linux /proc)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    """``ndb dap --port 0`` with its process at hand, stopped (and its clients closed) after."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads the server's CPU time from /proc")
    with tcp_server(tmp_path / "stderr.txt") as (process, port):
        found = Served(port, process, [])
        try:
            yield found
        finally:
            for dap in found.clients:
                await dap.aclose()


async def test_clients_gone_mid_prediction_leave_the_server_serving(served: Served) -> None:
    # Clients start long predictions on the shared model and vanish: one closes right after
    # sending `continue`, one right after `stepIn`, one once its prediction is known to be under
    # way. 64 samples at temperature 3 keep a step busy for seconds (until the token budget).
    slow = {"entry": "bubble_sort([9, 8, 7, 6, 5, 4, 3, 2, 1])", "backend": "local",
            "stopOnEntry": True, "samples": 64, "temperature": 3.0, "seed": 1,
            "maxTokens": 8192}  # fmt: skip
    gone: list[DapClient] = []
    for _ in range(3):
        dap = await served.client()
        await open_session(dap, **slow)
        assert (await dap.stopped())["reason"] == "entry"
        gone.append(dap)
    await gone[0].send("continue", threadId=1)
    await gone[1].send("stepIn", threadId=1)
    await gone[2].request("stepIn", threadId=1)
    assert "in progress" in await gone[2].refused("stackTrace", threadId=1)
    for dap in gone:
        await dap.aclose()

    # Clients that send half a message, or requests that start a prediction, then go.
    await _abandon(served.port, raw=b'Content-Length: 500\r\n\r\n{"seq": 1, ')
    await _abandon(served.port, raw=b"Content-Len")
    launch = {"program": str(EXAMPLE), "backend": "local", "entry": "bubble_sort([3, 1])",
              "stopOnEntry": True}  # fmt: skip
    await _abandon(served.port, requests=(("initialize", {"adapterID": "ndb"}),
                                          ("launch", launch), ("configurationDone", {}),
                                          ("continue", {"threadId": 1})))  # fmt: skip

    # Their predictions stop: the server goes idle (left running, they would keep it busy
    # for seconds: about 0.8 CPU seconds a second on two shared cores, measured).
    await anyio.sleep(0.5)  # a worker thread stops at its next token
    before = served.cpu_seconds()
    await anyio.sleep(1.0)
    assert served.cpu_seconds() - before < IDLE_CPU_S

    # The server still serves: oracle sessions at once, and the shared model still predicts.
    lists = own_lists(4)
    results: dict[int, list[dict[str, str]]] = {}

    async def one(index: int) -> None:
        results[index] = await scripted_session(await served.client(), lists[index])

    with anyio.fail_after(BUDGET):
        async with anyio.create_task_group() as tasks:
            for index in range(len(lists)):
                tasks.start_soon(one, index)
        local = await served.client()
        await open_session(local, backend="local", stopOnEntry=True)
        assert (await local.stopped())["reason"] == "entry"
        await local.request("stepIn", threadId=1)
        found = await local.event("stopped", "exited")
        assert found["event"] == "stopped", found
        assert found["body"]["description"].startswith("Predicted ")
    assert sorted(results) == list(range(len(lists)))
    for index, seen in results.items():
        check_own_values(lists[index], seen, reprs(lists[:index] + lists[index + 1 :]))
    assert served.process.poll() is None
