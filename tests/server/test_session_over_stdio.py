"""A whole debug session through ``ndb dap`` over a pipe, with the oracle (exact) backend."""

from __future__ import annotations

from pathlib import Path

from anyio.abc import Process
from launching import ENTRY, EXAMPLE, open_session

from neural_debugger.evaluation.dap_client import DapClient


async def test_full_session_on_bubble_sort(stdio_server: tuple[DapClient, Process]) -> None:
    dap, process = stdio_server
    capabilities = await dap.request("initialize", adapterID="ndb", supportsInvalidatedEvent=True)
    for name in ("supportsConfigurationDoneRequest", "supportsSetVariable", "supportsStepBack"):
        assert capabilities[name] is True
    assert capabilities["supportsLogPoints"] is True
    await dap.request("launch", program=str(EXAMPLE), entry=ENTRY, backend="oracle")
    await dap.event("initialized")
    set_ = await dap.request(
        "setBreakpoints",
        source={"path": str(EXAMPLE)},
        breakpoints=[{"line": 11}, {"line": 3}, {"line": 11, "condition": "swaps >"}],
    )
    verified = [(b["verified"], b.get("message", "")) for b in set_["breakpoints"]]
    assert verified[0] == (True, "")
    assert verified[1][0] is False and "does not start a statement" in verified[1][1]
    assert verified[2][0] is False and "condition refused" in verified[2][1]
    assert (await dap.request("setExceptionBreakpoints", filters=[]))["breakpoints"] == []
    await dap.request("configurationDone")

    stop = await dap.stopped()
    assert stop["reason"] == "breakpoint" and stop["threadId"] == 1
    assert "real run" in stop["description"] and "line 11" in stop["description"]
    assert stop["hitBreakpointIds"] == [set_["breakpoints"][0]["id"]]
    threads = (await dap.request("threads"))["threads"]
    assert threads == [{"id": 1, "name": "predicted run"}]

    trace = await dap.request("stackTrace", threadId=1)
    inner, outer = trace["stackFrames"]
    assert trace["totalFrames"] == 2
    assert (inner["name"], inner["line"], inner["column"]) == ("bubble_sort", 11, 1)
    assert Path(inner["source"]["path"]) == EXAMPLE
    # the caller stands on its call (the continue stepped through it)
    assert (outer["name"], outer["line"], outer["presentationHint"]) == ("main", 2, "subtle")
    assert "path" not in outer["source"] and outer["source"]["name"] == "<entry>"
    wrapper = await dap.request("source", sourceReference=outer["source"]["sourceReference"])
    assert wrapper["content"] == f"def main():\n    return {ENTRY}\n"

    variables = await dap.locals(inner["id"])
    assert variables["swaps"]["value"] == "0"
    assert variables["swaps"]["type"] == "int · 100% sure"
    assert variables["swaps"]["variablesReference"] == 0
    result = variables["result"]
    assert result["value"] == "[1, 3, 2]" and result["evaluateName"] == "result"
    parts = await dap.request("variables", variablesReference=result["variablesReference"])
    assert [(v["name"], v["value"]) for v in parts["variables"]] == [
        ("0", "1"),
        ("1", "3"),
        ("2", "2"),
    ]
    assert parts["variables"][2]["evaluateName"] == "result[2]"
    outer_scopes = (await dap.request("scopes", frameId=outer["id"]))["scopes"]
    assert [s["name"] for s in outer_scopes] == ["Locals (as last seen, line 2)"]

    async def evaluate(expression: str) -> str:
        answer = await dap.request("evaluate", expression=expression, frameId=inner["id"])
        return answer["result"]

    assert await evaluate("result[0]") == "1"
    assert await evaluate("len(items)") == "3"
    assert await evaluate("sorted(result)[::-1]") == "[3, 2, 1]"
    assert await evaluate("swaps + 1 if i == 0 else -1") == "1"
    refused = await dap.refused("evaluate", expression="__import__('os')", frameId=inner["id"])
    assert "calling '__import__' is not allowed" in refused
    edited = await dap.request(
        "setExpression", expression="result[0]", value="9", frameId=inner["id"]
    )
    assert edited["value"] == "9"
    assert (await dap.locals())["result"]["value"] == "[9, 3, 2]"
    assert (await dap.request("setExpression", expression="result", value="[1, 3, 2]"))["value"]
    assert "literal keys" in await dap.refused("setExpression", expression="result[i]", value="1")
    huge = await dap.refused("evaluate", expression="2 ** 20000", frameId=inner["id"])
    assert "too large" in huge and "internal error" not in huge
    assert "not allowed" in await dap.refused("evaluate", expression="result.__class__")
    assert "not a variable" in await dap.refused("evaluate", expression="nothing + 1")

    await dap.request("next", threadId=1)
    stop = await dap.stopped()
    assert stop["reason"] == "step"
    assert (await dap.top())["line"] == 8
    assert (await dap.locals())["swaps"]["value"] == "1"
    await dap.request("stepBack", threadId=1)
    assert (await dap.stopped())["reason"] == "step"
    assert (await dap.top())["line"] == 11
    assert (await dap.locals())["swaps"]["value"] == "0"
    await dap.request("stepIn", threadId=1)
    await dap.stopped()
    assert (await dap.top())["line"] == 8

    # a counterfactual edit: shown at once, marked as the user's; the real run cannot follow it
    edit = await dap.request("setVariable", variablesReference=await _locals_ref(dap), name="swaps",
                        value="5  (62% sure)")  # fmt: skip
    assert edit["value"] == "5" and edit["type"] == "int · set by you"
    assert (await dap.event("invalidated"))["body"]["areas"] == ["variables"]
    after_edit = await dap.locals()
    assert after_edit["swaps"]["value"] == "5"
    assert after_edit["items"]["type"] == "list · 100% sure"  # unedited: still the prediction's
    refs = await _locals_ref(dap)
    inner_ref = (await dap.locals())["result"]["variablesReference"]
    part = await dap.request("setVariable", variablesReference=inner_ref, name="1", value="7")
    assert part["value"] == "7"
    assert (await dap.request("variables", variablesReference=refs))["variables"][1]["value"] == (
        "[1, 7, 2]"
    )
    await dap.request("next", threadId=1)
    failed = await dap.stopped()
    assert failed["reason"] == "pause" and "differs from the real run" in failed["description"]
    await dap.request("stepBack", threadId=1)  # back before the edited stop
    await dap.stopped()
    assert (await dap.top())["line"] == 11

    await dap.request("stepIn", threadId=1)
    await dap.stopped()
    await dap.request("stepOut", threadId=1)  # as debugpy: a breakpoint on the way stops it
    assert (await dap.stopped())["reason"] == "breakpoint"
    assert (await dap.top())["line"] == 11
    await dap.request("setBreakpoints", source={"path": str(EXAMPLE)}, breakpoints=[])
    await dap.request("stepOut", threadId=1)
    await dap.stopped()  # as debugpy: in the caller, the callee's return value shown there
    top = await dap.top()
    assert (top["name"], top["line"], top["source"]["name"]) == ("main", 2, "<entry>")
    scopes = (await dap.request("scopes", frameId=top["id"]))["scopes"]
    assert [s["name"] for s in scopes] == ["Locals"]
    returned = await dap.locals(top["id"])  # debugpy's entry among the caller's Locals
    assert returned["(return) bubble_sort"]["value"] == "[1, 2, 3]"

    await dap.request("continue", threadId=1)
    assert (await dap.event("exited"))["body"] == {"exitCode": 0}
    await dap.event("terminated")
    assert "exited" in await dap.refused("next", threadId=1)
    await dap.request("disconnect")
    assert await process.wait() == 0


async def _locals_ref(dap: DapClient) -> int:
    frame = await dap.top()
    scopes = (await dap.request("scopes", frameId=frame["id"]))["scopes"]
    return next(s["variablesReference"] for s in scopes if s["name"] == "Locals")


async def test_stop_on_entry_then_conditional_breakpoint_and_reverse_continue(
    stdio_server: tuple[DapClient, Process],
) -> None:
    dap, _ = stdio_server
    await open_session(dap, stopOnEntry=True)
    entry = await dap.stopped()
    assert entry["reason"] == "entry"
    top = await dap.top()  # as debugpy: the first line that runs, not the call of the frame
    assert (top["name"], top["line"], top["source"]["name"]) == ("main", 2, "<entry>")
    await dap.request(
        "setBreakpoints",
        source={"path": str(EXAMPLE)},
        breakpoints=[{"line": 11, "condition": "swaps == 1"}],
    )
    await dap.request("continue", threadId=1)
    assert (await dap.stopped())["reason"] == "breakpoint"
    assert (await dap.locals())["swaps"]["value"] == "1"  # the first hit (swaps 0) was skipped
    await dap.request("setBreakpoints", source={"path": str(EXAMPLE)}, breakpoints=[{"line": 11}])
    await dap.request("next", threadId=1)
    await dap.stopped()
    await dap.request("next", threadId=1)
    await dap.stopped()
    await dap.request("reverseContinue", threadId=1)
    assert (await dap.stopped())["reason"] == "breakpoint"
    assert (await dap.top())["line"] == 11
    assert (await dap.locals())["swaps"]["value"] == "1"
    await dap.request(
        "reverseContinue", threadId=1
    )  # the hit the condition skipped is in the history
    await dap.stopped()
    assert (await dap.locals())["swaps"]["value"] == "0"
    await dap.request("reverseContinue", threadId=1)  # no earlier hit: back to the first stop
    await dap.stopped()
    assert (await dap.top())["source"]["name"] == "<entry>"
    assert "first stop" in await dap.refused("stepBack", threadId=1)


async def test_exception_stop_and_error_exit(
    stdio_server: tuple[DapClient, Process], tmp_path: Path
) -> None:
    dap, _ = stdio_server
    program = tmp_path / "ratio.py"
    program.write_text("def ratio(x):\n    y = x + 1\n    return y // (x - 1)\n")
    await dap.request("initialize", adapterID="ndb")
    await dap.request("launch", program=str(program), entry="ratio(1)", backend="oracle",
                 stopOnEntry=True)  # fmt: skip
    await dap.request("setExceptionBreakpoints", filters=["uncaught"])
    await dap.request("configurationDone")
    await dap.stopped()
    lines = []
    for _ in range(2):  # as debugpy: the first lines of the body, never the call or raise events
        await dap.request("stepIn", threadId=1)
        assert (await dap.stopped())["reason"] == "step"
        lines.append((await dap.top())["line"])
    assert lines == [2, 3]
    await dap.request("next", threadId=1)  # the exception ends the run: the uncaught filter stops
    stop = await dap.stopped()
    assert stop["reason"] == "exception" and stop["text"].startswith("ZeroDivisionError(")
    info = await dap.request("exceptionInfo", threadId=1)
    assert info["exceptionId"] == "ZeroDivisionError" and info["breakMode"] == "always"
    top = await dap.top()
    assert (top["name"], top["line"]) == ("ratio", 3)
    scopes = (await dap.request("scopes", frameId=top["id"]))["scopes"]
    assert [s["name"] for s in scopes] == ["Exception", "Locals"]
    raised = await dap.request("variables", variablesReference=scopes[0]["variablesReference"])
    assert raised["variables"][0]["name"] == "(exception)"
    assert raised["variables"][0]["value"].startswith("ZeroDivisionError(")
    assert (await dap.locals())["y"]["value"] == "2"
    assert "no variables to edit" in await dap.refused(
        "setVariable", variablesReference=scopes[1]["variablesReference"], name="y", value="0"
    )
    await dap.request("continue", threadId=1)
    assert (await dap.event("exited"))["body"] == {"exitCode": 1}


async def test_breakpoints_set_before_launch_are_verified_by_it(
    stdio_server: tuple[DapClient, Process],
) -> None:
    dap, _ = stdio_server
    await dap.request("initialize", adapterID="ndb")
    early = await dap.request(
        "setBreakpoints", source={"path": str(EXAMPLE)}, breakpoints=[{"line": 11}]
    )
    assert early["breakpoints"][0]["verified"] is False  # nothing is launched yet
    await dap.request("launch", program=str(EXAMPLE), entry=ENTRY, backend="oracle")
    said = await dap.event("output")
    assert "oracle" in said["body"]["output"] and said["body"]["category"] != "stderr"
    changed = await dap.event("breakpoint")
    assert changed["body"]["reason"] == "changed" and changed["body"]["breakpoint"]["verified"]
    await dap.event("initialized")
    await dap.request("configurationDone")
    assert (await dap.stopped())["reason"] == "breakpoint"


async def test_step_out_lands_in_the_caller_with_the_return_value(
    stdio_server: tuple[DapClient, Process], tmp_path: Path
) -> None:
    dap, _ = stdio_server
    program = tmp_path / "nested.py"
    program.write_text(
        "def inner(x):\n    return x * 2\n\n\ndef outer(y):\n    z = inner(y)\n    return z + 1\n"
    )
    await dap.request("initialize", adapterID="ndb")
    await dap.request("launch", program=str(program), entry="outer(3)", backend="oracle")
    await dap.event("initialized")
    await dap.request("setBreakpoints", source={"path": str(program)}, breakpoints=[{"line": 2}])
    await dap.request("configurationDone")
    await dap.stopped()
    await dap.request("stepOut", threadId=1)
    await dap.stopped()
    top = await dap.top()  # as debugpy: on the call's line, its assignment not yet done
    assert (top["name"], top["line"]) == ("outer", 6)
    shown = await dap.locals()
    assert [(n, v["value"]) for n, v in shown.items()] == [("(return) inner", "6"), ("y", "3")]
    await dap.request("next", threadId=1)
    await dap.stopped()
    assert (await dap.top())["line"] == 7
    shown = await dap.locals()
    assert shown["z"]["value"] == "6" and shown["(return) inner"]["value"] == "6"


async def test_restart_frame_and_goto(stdio_server: tuple[DapClient, Process]) -> None:
    dap, _ = stdio_server
    capabilities = await dap.request("initialize", adapterID="ndb")
    assert capabilities["supportsRestartFrame"] and capabilities["supportsGotoTargetsRequest"]
    await dap.request(
        "launch", program=str(EXAMPLE), entry=ENTRY, backend="oracle", stopOnEntry=True
    )
    await dap.event("initialized")
    await dap.request("configurationDone")
    await dap.stopped()
    for _ in range(2):  # from main:2 (the entry stop) to bubble_sort:5 and 6, as debugpy steps
        await dap.request("stepIn", threadId=1)
        await dap.stopped()
    assert (await dap.top())["line"] == 6
    await dap.request("restartFrame", frameId=(await dap.top())["id"])
    assert (await dap.stopped())["reason"] == "restart"
    assert ((await dap.top())["name"], (await dap.top())["line"]) == ("bubble_sort", 4)
    for _ in range(2):
        await dap.request("stepIn", threadId=1)
        await dap.stopped()
    source = {"path": str(EXAMPLE)}
    assert (await dap.request("gotoTargets", source=source, line=16))["targets"] == []
    (target,) = (await dap.request("gotoTargets", source=source, line=12))["targets"]
    await dap.request("goto", threadId=1, targetId=target["id"])
    assert (await dap.stopped())["reason"] == "goto"
    assert (await dap.top())["line"] == 12
    assert (await dap.locals())["result"]["value"] == "[3, 1, 2]"  # the locals came along
    assert "cannot jump" in await dap.refused("goto", threadId=1, targetId=16)


async def test_hit_counts_log_points_and_exception_filters(
    stdio_server: tuple[DapClient, Process], tmp_path: Path
) -> None:
    dap, _ = stdio_server
    capabilities = await dap.request("initialize", adapterID="ndb")
    assert capabilities["supportsHitConditionalBreakpoints"] is True
    assert [f["filter"] for f in capabilities["exceptionBreakpointFilters"]] == [
        "raised",
        "uncaught",
    ]
    await dap.request("launch", program=str(EXAMPLE), entry=ENTRY, backend="oracle")
    await dap.event("initialized")
    made = await dap.request(
        "setBreakpoints",
        source={"path": str(EXAMPLE)},
        breakpoints=[
            {"line": 11, "hitCondition": "2"},  # the second swap
            {"line": 12, "logMessage": "sorted {result} with {swaps} swaps"},
            {"line": 6, "hitCondition": "twice"},
        ],
    )
    assert [b["verified"] for b in made["breakpoints"]] == [True, True, False]
    assert "hit count 'twice'" in made["breakpoints"][2]["message"]
    await dap.request("configurationDone")
    assert (await dap.stopped())["reason"] == "breakpoint"
    assert (await dap.locals())["swaps"]["value"] == "1"  # the first hit was passed over
    await dap.request("continue", threadId=1)  # the log point writes and goes on to the end
    said = [(await dap.event("output"))["body"]["output"] for _ in range(2)]
    assert "sorted [1, 2, 3] with 2 swaps\n" in said
    await dap.event("exited")

    # an uncaught exception: a continue that ends in an error stops where it is raised
    program = tmp_path / "ratio.py"
    program.write_text("def ratio(x):\n    y = x + 1\n    return y // (x - 1)\n")
    filters = await dap.request("setExceptionBreakpoints", filters=["uncaught"])
    assert filters["breakpoints"][0]["verified"]
    arguments = {"program": str(program), "entry": "ratio(1)", "backend": "oracle"}
    await dap.request("restart", arguments=arguments)
    stopped = await dap.stopped()
    assert stopped["reason"] == "exception" and "ZeroDivisionError" in stopped["text"]
    assert (await dap.top())["line"] == 3
