"""Broken frames, bad requests and failed launches: each gets an error, the server goes on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from anyio.abc import Process
from launching import ENTRY, EXAMPLE

from neural_debugger.evaluation.dap_client import NDB_DAP, DapClient


def framed(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


async def complaint(dap: DapClient, text: str) -> str:
    """The next ``output`` event on stderr; it must mention ``text``."""
    found: dict[str, Any] = await dap.event("output")
    assert found["body"]["category"] == "stderr", found
    assert text in found["body"]["output"], found
    return found["body"]["output"]


async def still_serving(dap: DapClient) -> None:
    assert (await dap.request("threads"))["threads"] in ([], [{"id": 1, "name": "predicted run"}])


async def test_broken_frames_are_reported_and_skipped(
    stdio_server: tuple[DapClient, Process],
) -> None:
    dap, _ = stdio_server
    # invalid JSON whose seq is legible: an error response to that request
    await dap.raw(framed(b'{"seq": 901, "type": "request", "command": "threads", '))
    broken = await dap.answer(901)
    assert broken["success"] is False and broken["command"] == "threads"
    assert "not valid JSON" in broken["message"]
    await still_serving(dap)
    # invalid JSON without a seq, a header without Content-Length, a bad length, not an object
    await dap.raw(framed(b"this is not json"))
    await complaint(dap, "not valid JSON")
    await dap.raw(b"Content-Type: application/json\r\n\r\n")
    await complaint(dap, "missing Content-Length header")
    await dap.raw(b"Content-Length: twelve\r\n\r\n")
    await complaint(dap, "invalid Content-Length header")
    await dap.raw(framed(b"[1, 2]"))
    await complaint(dap, "must be a JSON object")
    await still_serving(dap)
    # stray bytes before a header, and a body shorter than announced: the next frame survives
    await dap.raw(b"hello" + framed(json.dumps({"seq": 902, "type": "request",
                                                 "command": "threads"}).encode()))  # fmt: skip
    await complaint(dap, "unexpected bytes before a header")
    assert (await dap.answer(902))["success"] is True
    short = b'{"seq": 903, "type": "request", "comm'
    await dap.raw(framed(short, length=len(short) + 30))
    seq = await dap.send("threads")
    assert "not valid JSON" in (await dap.answer(903))["message"]
    assert (await dap.answer(seq))["success"] is True
    # well-formed JSON that is no request
    await dap.raw(framed(b'{"seq": 904, "type": "request"}'))
    assert "command: Field required" in (await dap.answer(904))["message"]
    await still_serving(dap)


async def test_bad_requests_get_error_responses(
    stdio_server: tuple[DapClient, Process], tmp_path: Path
) -> None:
    dap, _ = stdio_server
    await dap.request("initialize", adapterID="ndb")
    assert await dap.refused("frobnicate") == "unknown command 'frobnicate'"
    assert "no program is launched" in await dap.refused("stackTrace", threadId=1)
    assert "no program is launched" in await dap.refused("next", threadId=1)
    assert "threadId: Field required" in await dap.refused("next")
    missing = tmp_path / "no_such_program.py"
    assert f"no such file: {missing}" in await dap.refused("launch", program=str(missing))
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n    return 1\n")
    message = await dap.refused("launch", program=str(broken))
    assert "syntax error" in message and "line 1" in message
    assert "must be a call" in await dap.refused("launch", program=str(EXAMPLE), entry="1 + 2")
    message = await dap.refused("launch", program=str(EXAMPLE), samples=0, backend="gpu")
    assert message.startswith("invalid arguments for launch:")
    assert "samples: Input should be greater than or equal to 1" in message
    assert "backend: Input should be 'local', 'vllm' or 'oracle'" in message
    message = await dap.refused("launch", program=str(EXAMPLE), returnSteps=-1)
    assert "returnSteps: Input should be greater than or equal to 0" in message
    assert "attach is not supported" in await dap.refused("attach")
    # after all that, a good launch still works
    await dap.request(
        "launch", program=str(EXAMPLE), entry=ENTRY, backend="oracle", stopOnEntry=True
    )
    assert "already launched" in await dap.refused("launch", program=str(EXAMPLE))
    await dap.event("initialized")
    await dap.request("configurationDone")
    assert (await dap.stopped())["reason"] == "entry"
    assert "not an exception" in await dap.refused("exceptionInfo", threadId=1)
    assert "no thread 2" in await dap.refused("next", threadId=2)
    assert "no frame 9" in await dap.refused("scopes", frameId=9)
    assert "not valid at this stop" in await dap.refused("variables", variablesReference=999)
    assert "no source" in await dap.refused("source", sourceReference=42)
    await dap.request("cancel", requestId=1)
    await dap.request("terminate")
    await dap.event("terminated")
    await dap.request("disconnect")


def test_an_empty_input_ends_the_server_cleanly() -> None:
    """End of input at once, from /dev/null (a device) or an empty pipe: a clean exit."""
    for how in ({"stdin": subprocess.DEVNULL}, {"input": b""}):
        done = subprocess.run(NDB_DAP, capture_output=True, timeout=60, **how)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert b"Traceback" not in done.stderr
