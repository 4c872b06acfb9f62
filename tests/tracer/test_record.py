"""The real tracer: events, locals, exits, and bad input that must never hang or crash."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import ProgramError, load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.run import trace, trace_file
from neural_debugger.tracer.values import CUT_MARKER, MAX_VALUE_CHARS

FAST = TraceLimits(max_events=2_000, max_seconds=2.0, hard_timeout_s=6.0)


def write(tmp_path: Path, source: str, name: str = "prog.py") -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


def test_script_module_frame_is_traced_with_its_variables(tmp_path: Path) -> None:
    path = write(tmp_path, "import math\n\ndef sq(x):\n    return x * x\n\ny = sq(3)\nprint(y)\n")
    program = load_program(path)
    result = record(program)
    kinds = [(e.kind, e.function, e.line, e.depth) for e in result.events]
    assert kinds == [
        ("call", "<module>", 1, 0),
        ("line", "<module>", 1, 0),
        ("line", "<module>", 3, 0),
        ("line", "<module>", 6, 0),
        ("call", "sq", 3, 1),
        ("line", "sq", 4, 1),
        ("return", "sq", 4, 1),
        ("line", "<module>", 7, 0),
        ("return", "<module>", 7, 0),
    ]
    # module-level: dunders and modules hidden, functions shown without an address
    assert result.events[-2].locals == {"sq": "<function sq>", "y": "9"}
    assert result.events[6].value == "9"
    assert result.exit is ExitKind.NORMAL
    assert result.output == "9\n"
    assert result.events[-1].output == "9\n"  # printed just before the module's return
    assert result.events[0].src == "import math"


def test_entry_call_runs_through_a_main_wrapper(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "def f(xs):\n    return sorted(xs, key=lambda v: -v)\n\n"
        "if __name__ == '__main__':\n    raise SystemExit('the main block must not run')\n",
    )
    program = load_program(path, "f([1, 3, 2])")
    assert program.context.endswith("\n\ndef main():\n    return f([1, 3, 2])")
    result = record(program)
    functions = [e.function for e in result.events if e.kind == "call"]
    assert functions == [
        "main",
        "f",
        "f.<locals>.<lambda>",
        "f.<locals>.<lambda>",
        "f.<locals>.<lambda>",
    ]
    assert result.events[-1].value == "[3, 2, 1]"
    assert result.events[0].file == "<entry>"


def test_a_program_defining_main_gets_another_wrapper_name(tmp_path: Path) -> None:
    path = write(tmp_path, "def main(n):\n    return n + 1\n")
    program = load_program(path, "main(1)")
    assert program.context.endswith("def ndb_main():\n    return main(1)")
    result = record(program)
    assert result.exit is ExitKind.NORMAL
    assert result.events[-1].value == "2"


def test_caught_and_uncaught_exceptions(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "def f(d):\n    try:\n        return d['k']\n    except KeyError:\n        pass\n"
        "    return 1 // 0\n\nf({})\n",
    )
    result = record(load_program(path))
    events = [(e.kind, e.line, e.value) for e in result.events if e.kind != "line"]
    assert ("exception", 3, "KeyError('k')") in events
    assert ("exception", 6, "ZeroDivisionError('integer division or modulo by zero')") in events
    assert result.exit is ExitKind.ERROR
    assert result.exit_reason == "ZeroDivisionError('integer division or modulo by zero')"


def test_system_exit_codes(tmp_path: Path) -> None:
    ok = record(load_program(write(tmp_path, "import sys\nsys.exit(0)\n", "a.py")))
    bad = record(load_program(write(tmp_path, "import sys\nsys.exit(3)\n", "b.py")))
    assert (ok.exit, bad.exit) == (ExitKind.NORMAL, ExitKind.ERROR)
    assert bad.exit_reason == "SystemExit(3)"


def test_event_limit_ends_in_never(tmp_path: Path) -> None:
    path = write(tmp_path, "n = 0\nwhile True:\n    n += 1\n")
    result = record(load_program(path), TraceLimits(max_events=500))
    assert result.exit is ExitKind.NEVER
    assert len(result.events) == 500
    assert "event limit" in (result.exit_reason or "")


# ---- bad input, through the subprocess runner ---------------------------------------------


def test_syntax_error_is_a_clear_message(tmp_path: Path) -> None:
    path = write(tmp_path, "def f(:\n    pass\n")
    with pytest.raises(ProgramError, match=r"syntax error in .*prog.py, line 1"):
        load_program(path)


def test_missing_file_and_bad_entry(tmp_path: Path) -> None:
    with pytest.raises(ProgramError, match="no such file"):
        load_program(tmp_path / "nope.py")
    path = write(tmp_path, "def f(x):\n    return x\n")
    with pytest.raises(ProgramError, match="not valid Python"):
        load_program(path, "f(")
    with pytest.raises(ProgramError, match="must be a call"):
        load_program(path, "1 + 2")


def test_an_entry_expression_that_raises_ends_in_the_error_exit(tmp_path: Path) -> None:
    path = write(tmp_path, "def f(x):\n    return x\n")
    _, result = trace_file(path, "g(1)", FAST)
    assert result.exit is ExitKind.ERROR
    assert result.exit_reason == "NameError(\"name 'g' is not defined\")"
    assert [e.kind for e in result.events] == ["call", "line", "exception", "return"]


def test_module_code_failing_before_the_entry_call(tmp_path: Path) -> None:
    path = write(tmp_path, "raise RuntimeError('broken import')\ndef f():\n    return 1\n")
    with pytest.raises(ProgramError, match="before the entry call: RuntimeError"):
        trace_file(path, "f()", FAST)


def test_reading_stdin_gets_end_of_file(tmp_path: Path) -> None:
    path = write(tmp_path, "name = input('who? ')\nprint(name)\n")
    started = time.monotonic()
    _, result = trace_file(path, None, FAST)
    assert time.monotonic() - started < 5
    assert result.exit is ExitKind.ERROR
    assert result.exit_reason == "EOFError('EOF when reading a line')"


def test_infinite_loop_ends_in_never_within_the_limit(tmp_path: Path) -> None:
    path = write(tmp_path, "i = 0\nwhile True:\n    i += 1\n")
    started = time.monotonic()
    _, result = trace_file(path, None, TraceLimits(max_events=10**9, max_seconds=1.0))
    assert time.monotonic() - started < 5
    assert result.exit is ExitKind.NEVER
    assert "time limit" in (result.exit_reason or "")
    assert result.events  # what ran before the limit is kept


def test_a_program_that_swallows_the_interruption_is_still_stopped(tmp_path: Path) -> None:
    source = "while True:\n    try:\n        x = 1\n    except BaseException:\n        pass\n"
    _, result = trace_file(write(tmp_path, source), None, TraceLimits(max_events=300))
    assert result.exit is ExitKind.NEVER
    assert len(result.events) == 300


def test_stuck_inside_one_builtin_call_is_killed(tmp_path: Path) -> None:
    path = write(tmp_path, "x = 1\ntotal = sum(range(10**15))\n")
    started = time.monotonic()
    _, result = trace_file(path, None, TraceLimits(max_seconds=1.0, hard_timeout_s=2.0))
    assert time.monotonic() - started < 6
    assert result.exit is ExitKind.NEVER
    assert "killed after 2 s" in (result.exit_reason or "")
    assert [e.line for e in result.events][:2] == [1, 1]  # events before the hang survive


def test_ten_million_element_list_is_bounded_and_marked(tmp_path: Path) -> None:
    path = write(tmp_path, "big = list(range(10_000_000))\nn = len(big)\n")
    _, result = trace_file(path, None, TraceLimits(max_seconds=20.0, hard_timeout_s=30.0))
    shown = result.events[-1].locals["big"]
    assert shown.startswith("[0, 1, 2, 3,")
    assert shown.endswith(CUT_MARKER)
    assert len(shown) == MAX_VALUE_CHARS + len(CUT_MARKER)
    assert result.exit is ExitKind.NORMAL


def test_reprs_that_raise_or_sleep_are_marked_not_fatal(tmp_path: Path) -> None:
    source = (
        "import time\n"
        "class Bad:\n    def __repr__(self):\n        raise ValueError('no')\n"
        "class Slow:\n    def __repr__(self):\n        time.sleep(30)\n        return 'slow'\n"
        "b = Bad()\ns = Slow()\ndone = True\n"
    )
    started = time.monotonic()
    _, result = trace_file(write(tmp_path, source), None, FAST)
    assert time.monotonic() - started < 8
    last = result.events[-1].locals
    assert last["b"] == "<repr failed: ValueError>"
    assert last["s"] == "<repr timed out>"
    assert result.exit is ExitKind.NORMAL


def test_reprs_are_deterministic_across_runs(tmp_path: Path) -> None:
    source = "words = {'pear', 'apple', 'fig', 'kiwi', 'plum'}\nobj = object()\nend = 1\n"
    program = load_program(write(tmp_path, source))
    first = trace(program, FAST).events[-1].locals
    second = trace(program, FAST).events[-1].locals
    assert first == second
    assert first["obj"] == "<object object>"
    assert "0x" not in first["obj"]


def test_memory_hog_fails_cleanly(tmp_path: Path) -> None:
    path = write(tmp_path, "x = 1\nhuge = [0] * (10**10)\n")
    _, result = trace_file(path, None, FAST)
    assert result.exit is ExitKind.ERROR
    assert result.exit_reason == "MemoryError()"
