"""What an editor sees when the vLLM server of its session dies: a clear message, and with a
second server the session goes on there (the real DAP server over a pipe, real vLLM servers)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "server"))  # the one DAP client the tests share
from dap_client import SERVER, DapClient  # noqa: E402


@asynccontextmanager
async def dap_over_pipe(log: Path) -> AsyncIterator[DapClient]:
    """``ndb dap`` as a subprocess, spoken to over its stdin and stdout."""
    with log.open("wb") as err:
        process = await anyio.open_process(SERVER, stderr=err)
        assert process.stdin is not None and process.stdout is not None
        try:
            yield DapClient(process.stdin, process.stdout)
        finally:
            await process.stdin.aclose()
            with anyio.move_on_after(10):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


async def test_the_editor_is_told_when_vllm_dies_and_a_second_server_takes_over(
    vllm_url: str, spare_vllm: tuple[str, Callable[[], None]], tmp_path: Path
) -> None:
    spare, kill = spare_vllm
    async with (
        dap_over_pipe(tmp_path / "alone.log") as alone,
        dap_over_pipe(tmp_path / "both.log") as both,
    ):
        await alone.start(backend="vllm", vllmUrl=[spare], stopOnEntry=True)
        await both.start(backend="vllm", vllmUrl=[spare, vllm_url], stopOnEntry=True)
        for dap in (alone, both):
            assert (await dap.stopped())["reason"] == "entry"
            await dap.ok("stepIn", threadId=1)
            assert (await dap.stopped())["description"].startswith("Predicted ")
        kill()
        await alone.ok("stepIn", threadId=1)
        while (output := (await alone.event("output"))["body"])["category"] != "stderr":
            pass
        assert "the prediction failed: cannot reach the vLLM server at " + spare in output["output"]
        stopped = await alone.stopped()  # the editor stays on the stop it showed
        assert stopped["reason"] == "pause" and "prediction failed" in stopped["description"]
        await both.ok("stepIn", threadId=1)  # the session with a second server goes on there
        assert (await both.stopped())["description"].startswith("Predicted ")
        await both.ok("stepIn", threadId=1)
        assert (await both.stopped())["description"].startswith("Predicted ")
