"""Programs for the MCP tests: a buggy function and a small one."""

from __future__ import annotations

from pathlib import Path

import pytest

# A buggy mean: ``total = v`` should be ``total += v``, so mean([2, 4, 6]) is 2.0, not 4.0.
BUGGY_MEAN = """def mean(values):
    total = 0
    for v in values:
        total = v
    return total / len(values)
"""
BUGGY_LINES = {"return": 5, "loop_body": 4}

SHIFT = """def shift(x):
    y = x + 1
    z = y * 2
    return z
"""

NESTED = """def inner(a):
    b = a * 3
    return b


def outer(n):
    m = inner(n) + 1
    return m
"""


@pytest.fixture
def programs(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name, text in {"buggy_mean": BUGGY_MEAN, "shift": SHIFT, "nested": NESTED}.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        made[name] = path
    return made
