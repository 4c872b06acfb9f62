"""The safe evaluator and value display, in process: what is computed and what is refused."""

from __future__ import annotations

import pytest

from neural_debugger.model_backend.confidence import without_sureness
from neural_debugger.model_backend.expressions import EvaluationError, Evaluator, parse, truthy
from neural_debugger.server.values import shown_value

STOP = {"items": "[3, 1, 2]", "result": "[1, 3, 2]", "swaps": "0", "name": "'ab'",
        "table": "{'a': 1, 'b': (2, 3)}", "thing": "<Node object at 0x7f>"}  # fmt: skip


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("result[0]", 1),
        ("len(items)", 3),
        ("max(result) - min(result)", 2),
        ("sorted(items, reverse=True)", [3, 2, 1]),
        ("result[1:]", [3, 2]),
        ("table['b'][1] * 2", 6),
        ("'a' in table and swaps == 0", True),
        ("items.count(3) + name.upper().count('A')", 2),
        ("sum(items) if swaps else -1", -1),
        ("abs(-swaps - 4) ** 2", 16),
        ("repr(name)", "'ab'"),
        ("(1, 2) < (1, 3) <= (1, 3)", True),
        ("list(table.items())[0]", ("a", 1)),
        ("f'{name!r}-{swaps:03d}|{result[0]:>3}'", "'ab'-000|  1"),
        ("isinstance(items, (list, tuple)) and not isinstance(name, int)", True),
        ("''.join(reversed(name)) + name.zfill(4)", "ba00ab"),
        (
            "list(zip(name, items)) + list(enumerate(name, 1))",
            [("a", 3), ("b", 1), (1, "a"), (2, "b")],
        ),
        ("chr(ord(name[0]) + 1) if swaps == 0 else divmod(7, 2)", "b"),
        ("[x * 2 for x in items if x > 1]", [6, 4]),
        ("{k: v for k, v in table.items() if k != 'b'}", {"a": 1}),
        ("''.join(c.upper() for c in name)", "AB"),
        ("[n for n in name for n in n * 2]", ["a", "a", "b", "b"]),  # the first `name` is outer
        ("sorted(table.items(), key=lambda kv: -len(str(kv[1])))[0][0]", "b"),
        ("sorted(items, key=len) if False else list(map(str, items))", ["3", "1", "2"]),
        ("list(filter(str.isalpha, name + '1'))", ["a", "b"]),
        ("'{}-{:>3}'.format(name, swaps)", "ab-  0"),
        ("dict.fromkeys(name, 0) | {**table}", {"a": 1, "b": (2, 3)}),
        ("name.translate(str.maketrans('ab', 'xy')) + 'a\tb'.expandtabs(2)", "xya b"),
        ("[*items, *name]", [3, 1, 2, "a", "b"]),
        ("type(items) == list and type(name) is str", True),
    ],
)
def test_expressions_over_predicted_values(expression: str, value: object) -> None:
    assert Evaluator(STOP).evaluate(expression) == value


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os')", "calling '__import__' is not allowed"),
        ("open('/etc/passwd')", "calling 'open' is not allowed"),
        ("items.__class__", "names starting with _ are"),
        ("items.append(4)", "'append' is not available"),
        ("[x for x in range(10 ** 6) for y in range(10 ** 6)]", "more than 100000 turns"),
        ("(lambda: 1)()", "only builtins and methods of plain values can be called"),
        ("[lambda: 1]", "a lambda is allowed only as a call's argument"),
        ("'{0.__class__}'.format(items)", "may not read attributes"),
        ("'{:>99999}'.format(swaps)", "format widths over 10000"),
        ("list(map(name.center, [10 ** 9]))", "too large"),
        ("''.join(map(lambda n: 'x' * 10 ** 6, range(10 ** 6)))", "too large"),
        ("(y := 1)", "assignment (:=) is not allowed"),
        ("f'{swaps:>99999}'", "format widths over 10000"),
        ("list(range(10 ** 9))", "too large"),
        ("name.center(10 ** 9)", "too large"),
        ("str.center(name, 10 ** 9)", "too large"),  # a type's method: its receiver first
        ("isinstance(items, len)", "isinstance takes builtin types"),
        ("sorted(items, key=len)", "TypeError"),
        ("10 ** 10 ** 9", "too large"),
        ("'x' * 10 ** 12", "too large"),
        ("1 << 10 ** 8", "too large"),
        ("sum([[1], [2]])", "TypeError"),
        ("result[7]", "IndexError: list index out of range"),
        ("thing", "thing cannot be rebuilt"),
        ("missing", "name 'missing' is not a variable at this stop"),
        ("type('X', (), {})", "type() here takes one value"),
        ("items[", "not a Python expression"),
        ("x = 1", "not a Python expression"),
    ],
)
def test_everything_else_is_refused_with_a_reason(expression: str, message: str) -> None:
    with pytest.raises(EvaluationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Evaluator(STOP).evaluate(expression)


def test_conditions_and_the_names_they_read() -> None:
    evaluator = Evaluator(STOP)
    evaluator.evaluate("swaps + len(result)")
    assert evaluator.used == ["swaps", "result"]
    assert truthy("swaps == 0", STOP) and not truthy("swaps > 0", STOP)
    with pytest.raises(EvaluationError):
        parse("import os")


def test_values_are_debugpy_texts_and_confidence_is_stripped_from_edits() -> None:
    assert shown_value("[1, 2]") == "[1, 2]"  # confidence is never part of a value
    classes = frozenset({"Box"})
    assert shown_value("<class 'Box'>", "__main__", classes) == "<class '__main__.Box'>"
    assert shown_value("[<class 'Box'>, <class 'int'>]", "m", classes) == (
        "[<class 'm.Box'>, <class 'int'>]"
    )
    assert without_sureness(" [1, 2]  (62% sure) ") == "[1, 2]"
    assert without_sureness("'(not sure)'") == "'(not sure)'"
