"""The one DAP client: clear errors when an adapter dies, stays silent or writes what is not DAP.

Each "adapter" here is a real subprocess on a real pipe that misbehaves in one way; the client
must say what went wrong (a :class:`DapError`), never hang or fail with a bare ``KeyError``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from neural_debugger.evaluation.dap_client import NDB_DAP, DapClient, DapError

WAIT_FOR_EOF = "sys.stdin.buffer.read()"  # stays until the client closes its side


def _adapter(writes: bytes, then: str = "") -> list[str]:
    """A process that reads nothing, writes ``writes`` to stdout, then runs ``then``."""
    return [
        sys.executable,
        "-c",
        f"import sys; sys.stdout.buffer.write({writes!r}); sys.stdout.flush(); {then}",
    ]


@pytest.mark.parametrize(
    ("writes", "then", "said"),
    [
        # gone before or after the request is written: its input or its output is closed
        (b"", "", "the adapter closed its (input|output)"),
        (b"Content-Length: 40\r\n\r\n{}", "", "the adapter closed its (input|output)"),
        (b"Content-Type: json\r\n\r\n{}", WAIT_FOR_EOF, "without a Content-Length"),
        (b"Content-Length: x\r\n\r\n{}", WAIT_FOR_EOF, "without a Content-Length"),
        (b"Content-Length: 5\r\n\r\nhello", WAIT_FOR_EOF, "not JSON"),
        (b"Content-Length: 2\r\n\r\n[]", WAIT_FOR_EOF, "not DAP"),
        (b'Content-Length: 13\r\n\r\n{"type": "x"}', WAIT_FOR_EOF, "not DAP"),
        (b"", WAIT_FOR_EOF, "no response to request 1 within 2 s"),
    ],
)
async def test_a_misbehaving_adapter_gives_a_clear_error(
    tmp_path: Path, writes: bytes, then: str, said: str
) -> None:
    timeout = 2.0 if said.startswith("no response") else 30.0  # a loaded machine starts slowly
    dap = await DapClient.spawn(_adapter(writes, then), tmp_path / "stderr.txt", timeout=timeout)
    try:
        with pytest.raises(DapError, match=said):
            await dap.request("initialize", adapterID="ndb")
    finally:
        await dap.aclose()
    assert dap.process is not None and dap.process.returncode is not None  # never left running


async def test_an_exited_adapter_is_named_with_its_exit_code(tmp_path: Path) -> None:
    dap = await DapClient.spawn(_adapter(b"", "sys.exit(3)"), tmp_path / "stderr.txt")
    assert dap.process is not None
    await dap.process.wait()
    with pytest.raises(DapError, match="exited with code 3"):
        await dap.request("initialize", adapterID="ndb")
    await dap.aclose()


async def test_requests_events_and_refusals_against_the_real_server(tmp_path: Path) -> None:
    dap = await DapClient.spawn(NDB_DAP, tmp_path / "stderr.txt", timeout=30.0)
    try:
        capabilities = await dap.request("initialize", adapterID="ndb")
        assert capabilities["supportsStepBack"] is True
        assert "not supported" in await dap.refused("attach")
        late = await dap.send("threads")  # answered out of turn is kept until asked for
        assert (await dap.answer(late))["success"] is True
        with pytest.raises(DapError, match="launch failed"):
            await dap.request("launch", program=str(tmp_path / "missing.py"), backend="oracle")
    finally:
        await dap.close()
    assert dap.process is not None and dap.process.returncode is not None
