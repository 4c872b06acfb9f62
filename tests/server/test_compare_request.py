"""The custom ``compareWithRealRun`` request: a predicted session's actions taken on a real run."""

from __future__ import annotations

from anyio.abc import Process
from launching import EXAMPLE, open_session

from neural_debugger.evaluation.dap_client import DapClient

# the demo's program: the model's stops there show variables (on bubble_sort it may instead
# step into `main` again, whose frame has none)
PROGRAM = EXAMPLE.parent / "running_total.py"


async def test_predicted_stops_are_compared_with_the_real_run(
    stdio_server: tuple[DapClient, Process],
) -> None:
    dap, _ = stdio_server
    refused = await dap.refused("compareWithRealRun")
    assert "no program is launched" in refused
    entry = "running_total([3, 1, 2])"
    await open_session(dap, backend="local", stopOnEntry=True, program=str(PROGRAM), entry=entry)
    await dap.stopped()
    lines = [(await dap.top())["line"]]  # where each stop was predicted, as the client saw it
    variables: dict[str, dict[str, object]] = {}
    for _ in range(6):
        await dap.request("stepIn", threadId=1)
        if (await dap.event("stopped", "exited"))["event"] == "exited":
            break
        lines.append((await dap.top())["line"])
        variables = await dap.locals()
        if variables:
            break
    assert variables, "no stop with variables was predicted"
    name = next(iter(variables))
    scopes = (await dap.request("scopes", frameId=(await dap.top())["id"]))["scopes"]
    reference = next(s for s in scopes if s["name"].startswith("Locals"))["variablesReference"]
    await dap.request("setVariable", variablesReference=reference, name=name, value="'edited'")

    # every event the requests walked is compared (a stepIn walks the call event to the first
    # line of the body, as debugpy stops there), so there are at least as many as stops shown
    body = await dap.request("compareWithRealRun")
    assert body["stops"] >= len(lines) and 1 <= body["compared"] <= body["stops"]
    assert body["wrongStops"] == len({d["step"] for d in body["divergences"]})
    edits = [d for d in body["divergences"] if d["kind"] == "variable" and d["name"] == name]
    assert edits and edits[-1]["step"] == body["stops"] - 1
    assert edits[-1]["predicted"] == "'edited'" and edits[-1]["counterfactual"] is True
    program_lines = len(PROGRAM.read_text().splitlines())
    for divergence in body["divergences"]:
        assert divergence["message"].startswith(f"Stop {divergence['step']} ")
        if divergence["path"] is not None:  # marked in the editor: the predicted line, 1-based
            assert divergence["path"] == str(PROGRAM)
            assert 1 <= divergence["line"] <= program_lines
    assert edits[-1]["line"] == lines[-1]
    # the session itself is untouched and goes on
    assert (await dap.top())["line"] == lines[-1]
    await dap.request("stepBack", threadId=1)
    assert (await dap.stopped())["reason"] == "step"


async def test_a_real_run_is_not_compared_with_itself(
    stdio_server: tuple[DapClient, Process],
) -> None:
    dap, _ = stdio_server
    await open_session(dap, stopOnEntry=True)  # the oracle backend
    await dap.stopped()
    assert "this session is the real run" in await dap.refused("compareWithRealRun")
