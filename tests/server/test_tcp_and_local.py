"""``ndb dap --port``: several clients at once; and a session on the embedded model."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from launching import ENTRY, EXAMPLE, open_session

from neural_debugger.evaluation.dap_client import DapClient

SURE = re.compile(r" · (<1%|>99%|\d{1,3}%) sure$")


async def test_two_clients_each_with_their_own_session(
    connect: Callable[[], Awaitable[DapClient]],
) -> None:
    forward, inverse = await connect(), await connect()
    await open_session(forward, breakpoints=(11,))
    await open_session(inverse, inverse="[1, 2, 3]")  # an inverse session stops at its return value

    assert (await forward.stopped())["reason"] == "breakpoint"
    start = await inverse.stopped()
    assert start["reason"] == "entry" and "backwards" in start["description"]
    top = await inverse.top()
    assert top["line"] == 12
    scopes = (await inverse.request("scopes", frameId=top["id"]))["scopes"]
    assert scopes[0]["name"] == "Return value"
    returned = await inverse.request(
        "variables", variablesReference=scopes[0]["variablesReference"]
    )
    assert returned["variables"][0]["value"] == "[1, 2, 3]"

    await inverse.request("stepOut", threadId=1)  # backwards to the inputs of the call
    await inverse.stopped()
    assert (await inverse.top())["line"] == 4
    assert (await inverse.locals())["items"]["value"] == "[3, 1, 2]"
    assert (await forward.locals())["items"]["value"] == "[3, 1, 2]"
    await inverse.request("disconnect")

    await forward.request("next", threadId=1)  # the other client's session is untouched
    await forward.stopped()
    assert (await forward.top())["line"] == 8
    await forward.request("restart")
    assert (await forward.stopped())["reason"] == "breakpoint"  # breakpoints are kept
    assert (await forward.locals())["swaps"]["value"] == "0"
    await forward.request("continue", threadId=1)
    await forward.stopped()
    await forward.request("continue", threadId=1)
    assert (await forward.event("exited"))["body"]["exitCode"] == 0
    await forward.request("disconnect")

    late = await connect()  # the server outlives its clients
    assert (await late.request("initialize", adapterID="ndb"))["supportsStepBack"] is True


async def test_local_model_session_shows_confidence(
    connect: Callable[[], Awaitable[DapClient]],
) -> None:
    dap = await connect()
    # the demo's program: the model's stops there show variables (on bubble_sort it may
    # instead step into `main` again, whose frame has none)
    demo = {"program": str(EXAMPLE.parent / "running_total.py")}
    demo["entry"] = "running_total([3, 1, 2])"
    await open_session(dap, backend="local", stopOnEntry=True, **demo)
    assert (await dap.stopped())["reason"] == "entry"
    seen: dict[str, dict[str, object]] = {}
    for _ in range(8):  # the shipped model is small: only the shape of its stops is checked
        await dap.request("stepIn", threadId=1)
        found = await dap.event("stopped", "exited")
        if found["event"] == "exited":
            break
        assert found["body"]["description"].startswith("Predicted ")
        frames = (await dap.request("stackTrace", threadId=1))["stackFrames"]
        assert frames and all(isinstance(f["line"], int) for f in frames)
        seen.update(await dap.locals(frames[0]["id"]))
        if seen:
            break
    assert seen, "no stop with variables was predicted"
    for variable in seen.values():
        assert SURE.search(str(variable["type"])), variable
    name, variable = next(iter(seen.items()))
    answer = await dap.ask("evaluate", expression=name)
    if answer["success"]:  # a predicted text that is a literal: its confidence carries over
        assert answer["body"]["type"] == variable["type"]
    else:
        assert "cannot be rebuilt" in answer["message"]

    # a step out with no breakpoint: the session's steps toward the return (returnSteps unset),
    # or its one jump (0); either way it stops in the caller on the call's line
    for steps in ({}, {"returnSteps": 0}):
        await dap.request("restart", arguments={"backend": "local", "stopOnEntry": True,
                                                **demo, **steps})  # fmt: skip
        assert (await dap.stopped())["reason"] == "entry"
        for _ in range(2):
            await dap.request("stepIn", threadId=1)
            await dap.stopped()
        assert (await dap.request("stackTrace", threadId=1))["stackFrames"][0]["name"] == (
            "running_total"
        )
        await dap.request("stepOut", threadId=1)
        assert (await dap.stopped())["reason"] == "step"
        frames = (await dap.request("stackTrace", threadId=1))["stackFrames"]
        assert [f["name"] for f in frames] == ["main"]
        assert any(name.startswith("(return) running_total") for name in await dap.locals())

    # 64 samples a step keep the model busy long enough to be paused mid-prediction
    slow = {"program": str(EXAMPLE), "entry": ENTRY, "backend": "local", "stopOnEntry": True,
            "samples": 64, "temperature": 1.0, "seed": 3}  # fmt: skip
    await dap.request("restart", arguments=slow)
    assert (await dap.stopped())["reason"] == "entry"
    await dap.request("continue", threadId=1)
    assert "in progress" in await dap.refused("stackTrace", threadId=1)
    await dap.request("pause", threadId=1)
    paused = await dap.event("stopped", "exited")
    assert paused["event"] == "stopped" and paused["body"]["reason"] == "pause"
    assert (await dap.top())["line"] == 2  # still the entry stop: nothing was half-recorded


async def test_a_long_prediction_shows_progress_the_user_can_cancel(
    connect: Callable[[], Awaitable[DapClient]],
) -> None:
    dap = await connect()
    # 64 samples a step keep the model busy for seconds: long enough to show progress
    await open_session(dap, backend="local", stopOnEntry=True, samples=64, temperature=1.0, seed=5)
    assert (await dap.stopped())["reason"] == "entry"
    continued = await dap.send("stepIn", threadId=1)
    assert (await dap.answer(continued))["success"]
    started = await dap.find(  # the entry stop (a prediction too) may have shown progress first
        lambda m: (
            m["type"] == "event"
            and m["event"] == "progressStart"
            and m["body"]["requestId"] == continued
        ),
        "progressStart of the stepIn",
    )
    assert started["body"]["cancellable"] and started["body"]["requestId"] == continued
    await dap.request("cancel", progressId=started["body"]["progressId"])
    progress = started["body"]["progressId"]
    await dap.find(
        lambda m: (
            m["type"] == "event"
            and m["event"] == "progressEnd"
            and m["body"]["progressId"] == progress
        ),
        "progressEnd of the cancelled prediction",
    )
    stopped = await dap.event("stopped", "exited")
    assert stopped["event"] == "stopped" and stopped["body"]["reason"] == "pause"
    assert (await dap.top())["line"] == 2  # still the entry stop: nothing was half-recorded


async def test_inverse_session_checks_its_steps_back_with_the_local_model(
    connect: Callable[[], Awaitable[DapClient]],
) -> None:
    dap = await connect()
    await dap.request("initialize", adapterID="ndb")
    message = await dap.refused(
        "launch", program=str(EXAMPLE), entry=ENTRY, backend="oracle", inverse="[1, 2]", check=4
    )
    assert "local backend" in message  # nothing else can score a candidate forwards

    checked = await connect()
    await open_session(checked, backend="local", inverse="[1, 2, 3]", check=4, seed=1)
    assert (await checked.stopped())["reason"] == "entry"
    await checked.request(
        "stepOut", threadId=1
    )  # backwards to the inputs, the best of 4 candidates
    found = await checked.event("stopped", "exited")
    assert found["event"] == "stopped"
    assert (await checked.top())["line"] == 4  # the call of bubble_sort
    assert "items" in await checked.locals()  # its argument, predicted
