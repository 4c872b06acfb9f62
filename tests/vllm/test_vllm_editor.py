"""What an editor sees when the vLLM server of its session dies: a clear message, and with a
second server the session goes on there (the real DAP server over a pipe, real vLLM servers)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from neural_debugger.evaluation.dap_client import NDB_DAP, DapClient

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "examples" / "bubble_sort.py"


async def _launched(dap: DapClient, urls: list[str]) -> None:
    """An editor's start of a session on the vLLM backend, stopped on entry."""
    await dap.request("initialize", adapterID="ndb", supportsProgressReporting=True)
    await dap.request(
        "launch",
        program=str(PROGRAM),
        entry="bubble_sort([3, 1, 2])",
        backend="vllm",
        vllmUrl=urls,
        stopOnEntry=True,
    )
    await dap.event("initialized")
    await dap.request("configurationDone")
    assert (await dap.stopped())["reason"] == "entry"


async def test_the_editor_is_told_when_vllm_dies_and_a_second_server_takes_over(
    vllm_url: str, spare_vllm: tuple[str, Callable[[], None]], tmp_path: Path
) -> None:
    spare, kill = spare_vllm
    alone = await DapClient.spawn(NDB_DAP, tmp_path / "alone.log", keep_output=True)
    both = await DapClient.spawn(NDB_DAP, tmp_path / "both.log", keep_output=True)
    async with alone, both:
        await _launched(alone, [spare])
        await _launched(both, [spare, vllm_url])
        for dap in (alone, both):
            await dap.request("stepIn", threadId=1)
            assert (await dap.stopped())["description"].startswith("Predicted ")
        kill()
        await alone.request("stepIn", threadId=1)
        while (output := (await alone.event("output"))["body"])["category"] != "stderr":
            pass
        assert "the prediction failed: cannot reach the vLLM server at " + spare in output["output"]
        stopped = await alone.stopped()  # the editor stays on the stop it showed
        assert stopped["reason"] == "pause" and "prediction failed" in stopped["description"]
        for _ in range(2):  # the session with a second server goes on there
            await both.request("stepIn", threadId=1)
            assert (await both.stopped())["description"].startswith("Predicted ")
