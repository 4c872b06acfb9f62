"""How the server tests open a session: bubble_sort on the oracle backend unless told otherwise.

The DAP client itself is the project's one client, :mod:`neural_debugger.evaluation.dap_client`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from neural_debugger.evaluation.dap_client import DapClient

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"
ENTRY = "bubble_sort([3, 1, 2])"
WAIT = 30.0  # seconds any one message may take


async def open_session(dap: DapClient, *, breakpoints: tuple[int, ...] = (), **launch: Any) -> None:
    """initialize, launch bubble_sort (oracle unless told), breakpoints, configurationDone."""
    capabilities = await dap.request(
        "initialize",
        adapterID="ndb",
        supportsInvalidatedEvent=True,
        supportsProgressReporting=True,
    )
    assert capabilities["supportsStepBack"] is True
    arguments = {"program": str(EXAMPLE), "entry": ENTRY, "backend": "oracle", **launch}
    await dap.request("launch", **arguments)
    await dap.event("initialized")
    if breakpoints:
        lines = [{"line": n} for n in breakpoints]
        await dap.request("setBreakpoints", source={"path": str(EXAMPLE)}, breakpoints=lines)
    await dap.request("configurationDone")
