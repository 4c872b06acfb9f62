"""``ndb mcp`` driven by the MCP SDK's own client over stdio, as a coding agent drives it.

The model backend runs the shipped model (models/ndb-small) on CPU, a few steps per test; the
oracle backend (a real traced run) is used where a test is about the tools, not predictions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import anyio
import pytest
from mcp_client import Agent, ToolFailed, mcp_server

from neural_debugger.model_backend.confidence import without_sureness

TOOLS = {
    "start_session",
    "step",
    "set_breakpoints",
    "stack",
    "evaluate",
    "set_variable",
    "predict_inputs",
    "compare_with_real_run",
    "end_session",
}


def value(stop: dict, name: str) -> str:
    """A variable's value without the confidence suffix the Variables view adds."""
    return without_sureness(stop["locals"][name])


async def still_serving(agent: Agent) -> None:
    listed = await agent.session.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS


async def test_tools_are_listed_with_typed_inputs_and_outputs(tmp_path: Path) -> None:
    async with mcp_server(stderr=tmp_path / "server.stderr.txt") as agent:
        listed = {tool.name: tool for tool in (await agent.session.list_tools()).tools}
        assert set(listed) == TOOLS
        for tool in listed.values():
            assert tool.description and tool.output_schema is not None, tool.name
        start_schema = listed["start_session"].input_schema["properties"]
        assert start_schema["backend"]["enum"] == ["model", "oracle"]
        assert start_schema["allow_execution"]["default"] is False
        assert start_schema["breakpoints"]["default"] == []
        actions = listed["step"].input_schema["properties"]["action"]["enum"]
        assert actions == ["into", "over", "out", "continue", "back", "reverse_continue"]
        stop_fields = listed["step"].output_schema["properties"]
        for name in ("line", "frame", "depth", "locals", "confidence", "exited", "exception"):
            assert name in stop_fields


async def test_agent_episode_finds_the_bug_edits_and_compares(tmp_path: Path, programs) -> None:
    """Step to the wrong value, ask what-if with an edit, then check against a real run."""
    async with mcp_server(stderr=tmp_path / "server.stderr.txt") as agent:
        first = await agent.call(
            "start_session",
            program=str(programs["buggy_mean"]),
            entry="mean([2, 4, 6])",
            breakpoints=[5],
        )
        sid = first["session_id"]
        assert first["event"] == "call" and first["predicted"] and first["step"] == 0

        at_return = await agent.call("step", session_id=sid, action="continue")
        assert (at_return["line"], at_return["reason"], at_return["frame"]) == (
            5,
            "breakpoint",
            "mean",
        )
        assert value(at_return, "total") == "6"  # the bug: the last value, not the sum 12
        assert 0 < at_return["confidence"]["total"] <= 1
        mean = await agent.call("evaluate", session_id=sid, expression="total / len(values)")
        assert without_sureness(mean["result"]) == "2.0"

        returned = await agent.call("step", session_id=sid, action="over")
        assert returned["event"] == "return" and returned["return_value"] is not None
        back = await agent.call("step", session_id=sid, action="back")
        assert (back["step"], back["line"]) == (1, 5)

        edited = await agent.call("set_variable", session_id=sid, name="total", value="12")
        assert edited["locals"]["total"] == "12" and edited["confidence"]["total"] == 1.0
        what_if = await agent.call("evaluate", session_id=sid, expression="total / len(values)")
        assert without_sureness(what_if["result"]) == "4.0"  # evaluated on the edited stop
        after_edit = await agent.call("step", session_id=sid, action="over")
        # the same step from the edited stop: a new prediction, made after the edit
        assert after_edit["event"] == "return" and after_edit["step"] == returned["step"]
        assert after_edit["return_value"] is not None

        refused = await agent.call("stack", session_id=sid)
        assert [f["name"] for f in refused["frames"]] == ["mean", "main"]
        comparison = await agent.call("compare_with_real_run", session_id=sid, allow_execution=True)
        assert comparison["compared"] == comparison["stops"] == 3
        first_wrong = comparison["first_divergence"]
        assert first_wrong["step"] == 1 and first_wrong["name"] == "total"
        assert (first_wrong["predicted"], first_wrong["real"]) == ("12", "6")
        assert first_wrong["counterfactual"] and "the real run had 6" in first_wrong["message"]
        ended = await agent.call("end_session", session_id=sid)
        assert ended["ended"]
        with pytest.raises(ToolFailed, match="unknown session"):
            await agent.call("stack", session_id=sid)


async def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(
    programs, tmp_path: Path
) -> None:
    async with mcp_server(
        "--max-program-bytes", "2000", stderr=tmp_path / "server.stderr.txt"
    ) as agent:
        broken = tmp_path / "broken.py"
        broken.write_text("def f(:\n    pass\n")
        large = tmp_path / "large.py"
        large.write_text("x = 1\n" * 500)
        mean = str(programs["buggy_mean"])
        refused = [
            ("step", {"session_id": "nope", "action": "into"}, "unknown session 'nope'"),
            ("start_session", {"program": str(tmp_path / "gone.py")}, "no such file"),
            ("start_session", {"program": str(broken)}, "syntax error"),
            ("start_session", {"program": str(large)}, "at most 2000 bytes"),
            ("start_session", {"program": mean, "backend": "oracle"}, "allow_execution"),
            ("start_session", {"program": mean, "entry": "mean(["}, "not valid Python"),
            ("start_session", {"program": mean, "breakpoints": [6]}, "not a statement line"),
            ("start_session", {"program": mean, "backend": "vm"}, "model"),
            (
                "predict_inputs",
                {"program": mean, "function": "f(", "output": "1"},
                "not a function",
            ),
        ]
        for tool, arguments, message in refused:
            with pytest.raises(ToolFailed, match=message):
                await agent.call(tool, **arguments)
            await still_serving(agent)

        real = await agent.call(
            "start_session",
            program=mean,
            entry="mean([2, 4])",
            backend="oracle",
            allow_execution=True,
        )
        sid = real["session_id"]
        assert real["predicted"] is False
        on_session = [
            ("step", {"action": "jump"}, "'into', 'over'"),
            ("step", {"action": "back"}, "already at the first stop"),
            ("evaluate", {"expression": "__import__('os')"}, "__import__"),
            ("evaluate", {"expression": "values["}, "not"),
            ("set_breakpoints", {"lines": [4], "conditions": {"5": "v > 1"}}, "not in lines"),
            ("set_breakpoints", {"lines": [4], "conditions": {"4": "v >"}}, "condition refused"),
            ("set_breakpoints", {"lines": [1, 7]}, "not a statement line"),
            ("set_variable", {"name": "nobody", "value": "1"}, "no variable 'nobody'"),
            ("compare_with_real_run", {"allow_execution": False}, "allow_execution=true"),
            ("compare_with_real_run", {"allow_execution": True}, "the real run"),
        ]
        for tool, arguments, message in on_session:
            with pytest.raises(ToolFailed, match=message):
                await agent.call(tool, session_id=sid, **arguments)
            await still_serving(agent)

        # a condition over the real values: the first hit where v > 2 is the second iteration
        await agent.call("set_breakpoints", session_id=sid, lines=[4], conditions={"4": "v > 2"})
        hit = await agent.call("step", session_id=sid, action="continue")
        assert (hit["reason"], hit["line"], hit["locals"]["v"]) == ("breakpoint", 4, "4")
        edited = await agent.call("set_variable", session_id=sid, name="total", value="100")
        assert edited["locals"]["total"] == "100"
        with pytest.raises(ToolFailed, match="differs from the real run"):  # no what-ifs in reality
            await agent.call("step", session_id=sid, action="into")
        await agent.call("step", session_id=sid, action="back")
        end = await agent.call("step", session_id=sid, action="continue")
        for _ in range(4):
            if end["exited"]:
                break
            end = await agent.call("step", session_id=sid, action="continue")
        assert end["exited"] and end["reason"] == "exited"
        with pytest.raises(ToolFailed, match="exited"):
            await agent.call("step", session_id=sid, action="into")
        reversed_ = await agent.call("step", session_id=sid, action="reverse_continue")
        assert reversed_["line"] == 4 and not reversed_["exited"]
        await agent.call("end_session", session_id=sid)
        with pytest.raises(ToolFailed, match="unknown session"):
            await agent.call("end_session", session_id=sid)
        await still_serving(agent)


async def test_stack_and_step_out_on_a_real_run(tmp_path: Path, programs) -> None:
    async with mcp_server(stderr=tmp_path / "server.stderr.txt") as agent:
        stop = await agent.call(
            "start_session",
            program=str(programs["nested"]),
            entry="outer(2)",
            backend="oracle",
            allow_execution=True,
        )
        sid = stop["session_id"]
        for _ in range(5):  # the entry line, outer's call and line 7, inner's call and line 2
            stop = await agent.call("step", session_id=sid, action="into")
        assert (stop["frame"], stop["line"], stop["depth"]) == ("inner", 2, 2)
        stack = await agent.call("stack", session_id=sid)
        frames = [(f["name"], f["line"], f["locals"]) for f in stack["frames"]]
        assert frames == [("inner", 2, {"a": "2"}), ("outer", 7, {"n": "2"}), ("main", 2, {})]
        assert stack["frames"][1]["seen_at_step"] == 3  # outer's values as last seen there
        assert (await agent.call("evaluate", session_id=sid, expression="a * 3"))["result"] == "6"
        out = await agent.call("step", session_id=sid, action="out")
        assert (out["frame"], out["depth"], out["return_value"]) == ("outer", 1, "6")


async def test_session_limit_and_idle_timeout(tmp_path: Path, programs) -> None:
    async with mcp_server(
        "--max-sessions", "2", "--idle-timeout", "2", stderr=tmp_path / "server.stderr.txt"
    ) as agent:
        opened = {"program": str(programs["shift"]), "entry": "shift(1)", "backend": "oracle"}
        first = await agent.call("start_session", allow_execution=True, **opened)
        second = await agent.call("start_session", allow_execution=True, **opened)
        with pytest.raises(ToolFailed, match="already holds 2 sessions"):
            await agent.call("start_session", allow_execution=True, **opened)
        await agent.call("end_session", session_id=first["session_id"])
        third = await agent.call("start_session", allow_execution=True, **opened)
        await anyio.sleep(1.2)
        await agent.call("step", session_id=third["session_id"], action="into")  # keeps it alive
        await anyio.sleep(1.2)
        with pytest.raises(ToolFailed, match="ended after 2 s idle"):
            await agent.call("step", session_id=second["session_id"], action="into")
        stop = await agent.call("step", session_id=third["session_id"], action="into")
        assert stop["step"] == 2


async def test_several_sessions_at_once_on_both_backends(tmp_path: Path, programs) -> None:
    async with mcp_server(stderr=tmp_path / "server.stderr.txt") as agent:
        model_mean, model_shift, real_shift = [
            await agent.call("start_session", **arguments)
            for arguments in (
                {"program": str(programs["buggy_mean"]), "entry": "mean([1, 3])"},
                {"program": str(programs["shift"]), "entry": "shift(4)"},
                {
                    "program": str(programs["shift"]),
                    "entry": "shift(4)",
                    "backend": "oracle",
                    "allow_execution": True,
                },
            )
        ]
        ids = [s["session_id"] for s in (model_mean, model_shift, real_shift)]
        assert len(set(ids)) == 3
        stops: dict[str, list[dict]] = {sid: [] for sid in ids}

        async def drive(sid: str) -> None:
            for _ in range(4):
                stops[sid].append(await agent.call("step", session_id=sid, action="into"))

        async with anyio.create_task_group() as tasks:
            for sid in ids:
                tasks.start_soon(drive, sid)
        mean_stop, shift_stop, real_stop = (stops[sid][-1] for sid in ids)
        assert mean_stop["frame"] == "mean" and "values" in mean_stop["locals"]
        assert (shift_stop["frame"], shift_stop["line"]) == ("shift", 3)
        assert value(shift_stop, "x") == "4" and value(shift_stop, "y") == "5"
        assert real_stop["predicted"] is False and real_stop["locals"] == {"x": "4", "y": "5"}
        # the model agrees with the real run on this small function, step by step
        predicted = [(s["event"], s["line"]) for s in stops[ids[1]]]
        assert predicted == [(s["event"], s["line"]) for s in stops[ids[2]]]
        assert all(s["step"] == 4 for s in (mean_stop, shift_stop, real_stop))


async def test_predict_inputs_returns_candidate_calls(tmp_path: Path, programs) -> None:
    async with mcp_server(stderr=tmp_path / "server.stderr.txt") as agent:
        found = await agent.call(
            "predict_inputs", program=str(programs["shift"]), function="shift", output="12", count=3
        )
        candidates = found["candidates"]
        assert 1 <= len(candidates) <= 3
        assert len({c["call"] for c in candidates}) == len(candidates)
        for candidate in candidates:
            assert set(candidate["arguments"]) == {"x"}
            x = candidate["arguments"]["x"]
            assert candidate["call"] == f"shift(x={x})"
            assert 0 <= candidate["confidence"] <= 1
            # each candidate is predicted forwards, and confirmed only where that prediction
            # gives the output asked for (whether the model is right is the evaluation's job)
            forward = candidate["forward_output"]
            assert isinstance(forward, str) and forward
            assert candidate["confirmed"] == (ast.literal_eval(forward) == 12)
        confirmed = [c["confirmed"] for c in candidates]
        assert confirmed == sorted(confirmed, reverse=True)  # confirmed ones first
        with pytest.raises(ToolFailed, match="no function named 'nothing'"):
            await agent.call(
                "predict_inputs", program=str(programs["shift"]), function="nothing", output="1"
            )
        await still_serving(agent)
