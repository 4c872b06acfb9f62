"""The one confidence formatter: how every frontend writes a probability."""

from __future__ import annotations

import pytest

from neural_debugger.model_backend.confidence import (
    percent,
    sure,
    sure_in_brackets,
    unsure,
    unsure_mark,
    without_sureness,
)


@pytest.mark.parametrize(
    ("p", "shown"),
    [
        (1.0, "100%"),
        (0.9996, ">99%"),  # a prediction is never shown as certain when it is not
        (0.995, ">99%"),
        (0.991, ">99%"),
        (0.99, "99%"),
        (0.62, "62%"),
        (0.01, "1%"),
        (0.004, "<1%"),
        (0.0, "<1%"),
    ],
)
def test_percent_reads_as_people_read_it(p: float, shown: str) -> None:
    assert percent(p) == shown


def test_sure_texts() -> None:
    assert sure(0.62) == "62% sure"
    assert sure_in_brackets(0.62) == "(62% sure)"
    assert sure_in_brackets(None) == ""


def test_unsure_marks_values_below_one_half_only() -> None:
    assert unsure(0.49) and unsure_mark(0.49) == "?"
    assert not unsure(0.5) and unsure_mark(0.5) == ""
    assert not unsure(None) and unsure_mark(None) == ""


def test_without_sureness_removes_only_a_confidence_suffix() -> None:
    assert without_sureness(" [1, 2]  (62% sure) ") == "[1, 2]"
    assert without_sureness("5  (>99% sure)") == "5"
    assert without_sureness("5  (<1% sure)") == "5"
    assert without_sureness("'(not sure)'") == "'(not sure)'"
    assert without_sureness("'x  (62% sure)'") == "'x  (62% sure)'"  # inside a string: kept
    for p in (0.0, 0.004, 0.62, 0.999, 1.0):
        assert without_sureness(f"[3]  {sure_in_brackets(p)}") == "[3]"
