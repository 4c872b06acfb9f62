"""What a vLLM request carries for the grammar: read back as it was written, refused clearly."""

from __future__ import annotations

import json

import pytest

from neural_debugger.model_backend.flow import Expected
from neural_debugger.model_backend.grammar_request import (
    XARG,
    GrammarRequest,
    GrammarRequestError,
)
from neural_debugger.protocol import StateKind


def test_a_request_reads_back_as_it_was_written() -> None:
    expected = Expected(
        lines={
            StateKind.LINE: frozenset({"    total = 0", "    é = 1"}),
            StateKind.CALL: frozenset(),
        },
        diff=True,
        names=frozenset({"total", "é"}),
        call_names={"def f(x):": frozenset({"x"})},
        unchanged={"    total = 0": frozenset({"x"})},
        before={"x": "1", "total": None},
        fixed={"LIMIT": "2", "f": "<function f>"},
        required=frozenset({"LIMIT"}),
        call_required={"def f(x):": frozenset({"x"})},
        call_fixed={"def f(x):": {"x": "'é'"}},
        returned="[1, 'é']",
    )
    request = GrammarRequest("def f(x):\n    total = 0\n", True, expected, 64)
    assert GrammarRequest.from_extra_args({XARG: request.to_json()}) == request
    plain = GrammarRequest("x = 1", False, Expected(), 1)
    assert GrammarRequest.from_extra_args({XARG: plain.to_json()}) == plain


def test_a_request_without_the_grammar_is_left_alone() -> None:
    assert GrammarRequest.from_extra_args(None) is None
    assert GrammarRequest.from_extra_args({"other": 1}) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("not json", "cannot read"),
        (json.dumps({"v": 99}), "not version"),
        (json.dumps({"v": 1, "code": "x"}), "cannot read"),
        (
            json.dumps(
                {
                    "v": 1,
                    "code": "",
                    "inverse": False,
                    "wanted": 0,
                    "lines": {},
                    "diff": None,
                    "names": None,
                    "call_names": {},
                    "unchanged": {},
                    "before": None,
                }
            ),
            "wanted must be 1 or more",
        ),
        (
            json.dumps(
                {
                    "v": 1,
                    "code": "",
                    "inverse": False,
                    "wanted": 1,
                    "lines": {"nope": []},
                    "diff": None,
                    "names": None,
                    "call_names": {},
                    "unchanged": {},
                    "before": None,
                }
            ),
            "cannot read",
        ),
    ],
)
def test_unreadable_grammar_arguments_are_refused_with_a_reason(raw: str, message: str) -> None:
    with pytest.raises(GrammarRequestError, match=message):
        GrammarRequest.from_extra_args({XARG: raw})
