"""The guard run that screens candidate training programs before the real tracer sees them."""

from __future__ import annotations

import resource
import time

from neural_debugger.training.programs.validate import check_program, guard_run

# One statement that builds a list of about 280 million ints: no line event comes while it
# runs, so only the address-space cap can stop it (without it: 17 s and 11 GB here).
HUGE_IN_ONE_LINE = """\
def transform(total):
    width = int.from_bytes(b'a1b2', 'little')
    pieces = list(range(0, width, 3))
    return pieces[:2]
"""

CAUGHT_BY_THE_PROGRAM = """\
def careful(n):
    try:
        block = [0] * (n * n)
    except Exception:
        block = []
    return len(block)
"""


def test_a_value_built_in_one_statement_is_refused_fast() -> None:
    start = time.perf_counter()
    assert guard_run(HUGE_IN_ONE_LINE, "transform(-1)") == "value too large"
    assert time.perf_counter() - start < 5
    verdict = check_program(HUGE_IN_ONE_LINE, "transform(-1)")
    assert not verdict.ok and verdict.reason == "guard: value too large"


def test_a_memory_error_the_program_catches_is_still_refused() -> None:
    assert guard_run(CAUGHT_BY_THE_PROGRAM, "careful(10 ** 6)") == "value too large"
    assert guard_run(CAUGHT_BY_THE_PROGRAM, "careful(10)") is None


def test_the_address_space_limit_is_restored() -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    guard_run(HUGE_IN_ONE_LINE, "transform(-1)")
    guard_run("def f():\n    return 1\n", "f()")
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def test_an_ordinary_program_still_passes() -> None:
    source = "def f(words):\n    out = []\n    for w in words:\n        out.append(w.upper())\n" + (
        "    return ', '.join(out)\n"
    )
    verdict = check_program(source, "f(['a', 'bc', 'd'])")
    assert verdict.ok, verdict.reason
