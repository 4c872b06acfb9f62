"""Repository-level harvest of method calls: the instance rebuilt from literals, then the method."""

from __future__ import annotations

import ast
import sys
import textwrap
import time
from dataclasses import replace

import pytest

from neural_debugger.protocol import parse_trajectory
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import DataSpec, Job, _work
from neural_debugger.training.programs.repo_tests import (
    RESTORE_HELPER,
    SUITES,
    Harvest,
    RepoCandidate,
    RepoPool,
    _Hook,
    _same_text,
    _state_literal,
    _top_level_functions,
    _top_level_methods,
    build_pool,
    check_candidate,
    harvest,
    method_source,
    sample_candidates,
)
from neural_debugger.training.programs.split import function_of
from neural_debugger.training.programs.stdlib import Unresolvable, assemble

TEXTWRAP = next(i for i, s in enumerate(SUITES) if s.module == "textwrap")


@pytest.fixture(scope="module")
def textwrap_harvest() -> Harvest:
    return harvest(TEXTWRAP)


def _method_pool(result: Harvest) -> RepoPool:
    """The pool with its method calls only."""
    pool = build_pool([result], None)
    tests = [(t, s, [c for c in calls if c.is_method]) for t, s, calls in pool.tests]
    return RepoPool([t for t in tests if t[2]], pool.counts, pool.functions)


# ---------------------------------------------------------------------- assembly of a class


def test_a_method_is_assembled_with_what_it_reaches_and_no_more() -> None:
    source = assemble("textwrap", "TextWrapper", method="_split")
    assert "def _split(self, text):" in source
    assert "wordsep_re = re.compile(" in source and "del whitespace" in source  # data it reads
    assert "def wrap(" not in source and "def __init__(" not in source  # unreachable
    assert '"""\n    Object for wrapping' not in source  # the class docstring goes
    namespace: dict[str, object] = {}
    exec(compile(source, "p.py", "exec"), namespace)
    wrapper = object.__new__(namespace["TextWrapper"])  # type: ignore[call-overload]
    wrapper.break_on_hyphens = True
    assert wrapper._split("goof-ball  x") == textwrap.TextWrapper()._split("goof-ball  x")
    with pytest.raises(Unresolvable):
        assemble("textwrap", "dedent", method="x")  # not a class
    with pytest.raises(Unresolvable):
        assemble("textwrap", "TextWrapper", method="no_such_method")
    with pytest.raises(Unresolvable):
        assemble("textwrap", "TextWrapper")  # without method: functions only, as before


def test_a_class_keeps_the_statements_that_finish_it_and_its_triggered_specials() -> None:
    source = assemble("string", "Template", method="substitute")
    assert "Template.__init_subclass__()" in source  # compiles the class's pattern
    namespace: dict[str, object] = {}
    exec(compile(source, "p.py", "exec"), namespace)
    template = object.__new__(namespace["Template"])  # type: ignore[call-overload]
    template.template = "$who likes $what"  # no __init__: the method never builds one
    assert "def __init__(" not in source
    assert template.substitute(who="tim", what="ham") == "tim likes ham"
    # zscore subtracts and divides: __sub__ and __truediv__ stay, __hash__ (never hashed) goes
    zscore = assemble("statistics", "NormalDist", method="zscore")
    assert "def __sub__(" in zscore and "def __repr__(" in zscore
    assert "def __hash__(" not in zscore and "def pdf(" not in zscore
    # the class body's own names are not taken for module functions of the same name
    first = assemble("calendar", "Calendar", method="getfirstweekday")
    assert "def setfirstweekday(firstweekday)" not in first


# ---------------------------------------------------------------------- the hook


def test_the_hook_keeps_method_calls_on_literal_instances_only() -> None:
    files, functions = _top_level_functions("textwrap")
    methods = _top_level_methods("textwrap")
    assert "TextWrapper.wrap" in methods and "TextWrapper.__init__" not in methods
    hook = _Hook(files, functions, methods)
    hook.deadline = time.monotonic() + 10

    class Sub(textwrap.TextWrapper):
        pass

    plain = textwrap.TextWrapper(width=12)
    odd = textwrap.TextWrapper(width=13)
    odd.placeholder = object()  # type: ignore[assignment]  # no literal writes it
    saved = sys.gettrace()
    sys.settrace(hook)
    try:
        plain.wrap("hello there, world")
        odd.wrap("hello there, world")
        Sub(width=14).wrap("hello there, world")
    finally:
        sys.settrace(saved)
    calls = [c for c in hook.calls if c.is_method]
    assert {c.function for c in calls} >= {"TextWrapper.wrap", "TextWrapper._wrap_chunks"}
    assert all("'width': 12" in c.state for c in calls)  # neither odd's nor Sub's
    assert hook.counts["method calls with a non-literal instance"] >= 2
    assert hook.counts["method calls on a subclass instance"] >= 2
    wrap = next(c for c in calls if c.function == "TextWrapper.wrap")
    assert wrap.entry == "TextWrapper.wrap('hello there, world')"
    assert ast.literal_eval(wrap.state)["width"] == 12
    assert wrap.exit == "return ['hello there,', 'world']"
    assert wrap.locals["self"].startswith("TextWrapper(width=12, ")
    assert wrap.self_after == wrap.locals["self"]


def test_instance_state_must_be_literal_and_unshared() -> None:
    wrapper = textwrap.TextWrapper(width=9)
    state = _state_literal(wrapper, [])
    assert state is not None and ast.literal_eval(state)["width"] == 9
    shared: list[int] = []
    wrapper.a, wrapper.b = shared, shared  # type: ignore[attr-defined]
    assert _state_literal(wrapper, []) is None  # two literals would make two lists
    wrapper.b = []  # type: ignore[attr-defined]
    assert _state_literal(wrapper, [wrapper.a]) is None  # an argument is the attribute
    assert _state_literal(wrapper, [[]]) is not None
    assert _state_literal(ValueError("x"), []) is None  # a C base keeps state of its own


def test_self_may_differ_only_by_the_module_qualifying_its_class() -> None:
    same = _same_text
    assert same(
        "TextWrapper", "textwrap", "program", "TextWrapper(width=1)", "TextWrapper(width=1)"
    )
    assert same(
        "TextWrapper", "textwrap", "program", "<textwrap.TextWrapper object>",
        "<program.TextWrapper object>",
    )  # fmt: skip
    assert not same(
        "TextWrapper", "textwrap", "program", "<textwrap.TextWrapper object>",
        "<program.TextWrapperX object>",
    )  # fmt: skip
    assert not same("Other", "textwrap", "program", "<textwrap.X object>", "<program.X object>")
    assert not same("TextWrapper", "textwrap", "program", "TextWrapper(width=1)", "TextWrapper(2)")


# ---------------------------------------------------------------------- a real suite


def test_suite_method_calls_are_recorded_with_literal_instances(
    textwrap_harvest: Harvest,
) -> None:
    counts = textwrap_harvest.counts
    calls = [c for calls in textwrap_harvest.tests.values() for c in calls]
    methods = [c for c in calls if c.is_method]
    assert counts["method calls seen"] >= len(methods) >= 300
    assert {c.function for c in methods} >= {"TextWrapper.wrap", "TextWrapper._split"}
    assert {c.function for c in calls if not c.is_method} >= {"dedent", "indent"}
    for call in methods[:100]:
        assert call.entry.startswith(call.function + "(")
        state = ast.literal_eval(call.state)
        assert isinstance(state, dict) and state["width"] >= 1
        assert call.exit.startswith(("return ", "raise "))
        assert next(iter(call.locals)) == "self"
        assert call.locals["self"].startswith("TextWrapper(")
    assert harvest(TEXTWRAP).tests == textwrap_harvest.tests  # deterministic


def test_method_candidates_reproduce_the_test_state_and_exit(textwrap_harvest: Harvest) -> None:
    pool = build_pool([textwrap_harvest], None)
    assert pool.counts["methods kept"] >= 4
    assert "textwrap.TextWrapper._split" in pool.functions
    assert "textwrap.TextWrapper.wrap" not in pool.functions  # too long to stand alone
    candidates = sample_candidates(_method_pool(textwrap_harvest), 0, 10)
    assert candidates == sample_candidates(_method_pool(textwrap_harvest), 0, 10)
    passed = []
    for candidate in candidates:
        program = candidate.program
        _, test_id, function = program.origin.split(":")
        assert function == f"textwrap.{candidate.function}" == function_of(program.origin)
        assert test_id.startswith("test_textwrap.")
        assert program.entry is not None and program.entry.startswith("text_wrapper.")
        assert f"\ntext_wrapper = {RESTORE_HELPER}(TextWrapper, {{" in program.source
        if check_candidate(candidate) is None:
            passed.append(candidate)
    assert len(passed) >= 6
    for candidate in passed[:3]:
        program = candidate.program
        trace = record(load_program("p.py", entry=program.entry, source=program.source))
        first = next(ev for ev in trace.events if ev.depth == 1)  # the method itself, first
        assert first.kind == "call" and first.function == candidate.function
        assert first.locals == candidate.locals
        assert sum(ev.kind == "line" for ev in trace.events) >= 5
    good = passed[0]
    other_self = dict(good.locals, self=good.locals["self"].replace("width=", "width=1", 1))
    assert check_candidate(replace(good, locals=other_self)) == (
        "call state differs from the test run"
    )
    assert check_candidate(replace(good, exit="return 'elsewhere'")) == (
        "exit differs from the test run"
    )


def test_method_programs_go_through_the_data_pipeline(textwrap_harvest: Harvest) -> None:
    candidates: tuple[RepoCandidate, ...] = tuple(
        sample_candidates(_method_pool(textwrap_harvest), 1, 6)
    )
    job = Job(
        DataSpec(programs=3, seed=0, max_states=10), "repo", 0, 0, 3, None, frozenset(), candidates
    )
    records, stats = _work(job)
    assert stats.programs >= 1 and records
    for rec in records:
        assert rec["origin"].startswith("repo:test_textwrap.")
        assert ":textwrap.TextWrapper." in rec["origin"]
        assert parse_trajectory(rec["text"]).complete


def test_method_source_is_cached_and_refuses_what_cannot_stand_alone() -> None:
    assert method_source("textwrap", "TextWrapper._split") is method_source(
        "textwrap", "TextWrapper._split"
    )
    assert method_source("textwrap", "TextWrapper.wrap") is None  # over the source limit
    assert method_source("calendar", "TextCalendar.formatmonth") is None  # locale-made names
