"""Repository-level harvest of the pytest suites that installed packages ship inside themselves."""

from __future__ import annotations

import ast

import pytest

from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.programs.repo_tests import (
    SUITES,
    Harvest,
    build_pool,
    check_candidate,
    harvest,
    impurity,
    sample_candidates,
)

pytest.importorskip("sympy")

DIGITS = next(i for i, s in enumerate(SUITES) if s.module == "sympy.ntheory.digits")
MISC = next(i for i, s in enumerate(SUITES) if s.module == "sympy.utilities.misc")
TEST_FILE = "sympy/ntheory/tests/test_digits.py"


@pytest.fixture(scope="module")
def digits_harvest() -> Harvest:
    return harvest(DIGITS)


def test_package_suites_are_pytest_suites_with_reasons() -> None:
    package = [s for s in SUITES if s.runner == "pytest"]
    assert len(package) >= 3
    for suite in package:
        assert suite.reason and suite.packages == {suite.module.split(".")[0]}
        assert suite.test.split(".")[0] == suite.module.split(".")[0]
    assert all(s.packages == frozenset() for s in SUITES if s.runner == "unittest")


def test_pytest_suite_is_harvested_with_literal_calls(digits_harvest: Harvest) -> None:
    counts = digits_harvest.counts
    assert counts["tests run"] == len(digits_harvest.tests) >= 4
    assert counts["tests stopped by the timeout"] == 0 and counts["collection errors"] == 0
    assert all(test_id.startswith(TEST_FILE + "::test_") for test_id in digits_harvest.tests)
    calls = [c for calls in digits_harvest.tests.values() for c in calls]
    assert len(calls) >= 30 and counts["calls seen"] >= len(calls)
    assert {c.function for c in calls} >= {"digits", "count_digits", "is_palindromic"}
    for call in calls:
        entry = ast.parse(call.entry, mode="eval").body
        assert isinstance(entry, ast.Call) and ast.unparse(entry.func) == call.function
        for arg in [*entry.args, *(k.value for k in entry.keywords)]:
            ast.literal_eval(arg)  # every argument is a literal
        assert call.depth > 5  # under pytest's and the test's own frames
    assert harvest(DIGITS).tests == digits_harvest.tests  # deterministic


def test_pytest_suite_calls_make_programs_that_reproduce_the_test_state(
    digits_harvest: Harvest,
) -> None:
    pool = build_pool([digits_harvest], None)
    assert pool.functions >= {"sympy.ntheory.digits.digits", "sympy.ntheory.digits.count_digits"}
    candidates = sample_candidates(pool, 0, 8)
    passed = []
    for candidate in candidates:
        assert candidate.program.origin.startswith(f"repo:{TEST_FILE}::test_")
        assert candidate.program.origin.endswith(f":sympy.ntheory.digits.{candidate.function}")
        if check_candidate(candidate) is None:
            passed.append(candidate)
    assert passed
    for candidate in passed:
        program = candidate.program
        assert f"def {candidate.function}(" in program.source
        trace = record(load_program("p.py", entry=program.entry, source=program.source))
        first = next(ev for ev in trace.events if ev.depth == 1)
        assert first.kind == "call" and first.locals == candidate.locals
        assert sum(ev.kind == "line" for ev in trace.events) >= 5


def test_skip_classes_deselect_pytest_tests() -> None:
    result = harvest(MISC)
    skipped = SUITES[MISC].skip_classes
    assert skipped and result.counts["tests run"] == len(result.tests) >= 5
    assert not any(t.split("::")[-1] in skipped for t in result.tests)
    assert any(c.function == "translate" for calls in result.tests.values() for c in calls)


def test_impurity_spots_package_randomness() -> None:
    source = "from sympy.core.random import _randint\ndef f(n):\n    return _randint()(0, n)\n"
    assert impurity(source) == "imports sympy.core.random"
    assert impurity("import numpy as np\ndef f(s):\n    return np.random.RandomState(s)\n")
