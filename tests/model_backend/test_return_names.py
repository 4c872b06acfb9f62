"""``(return)`` names as debugpy writes them, from the class the first variable's value shows
(debugpy's own entries are compared live in ``evaluation/scenarios/seen/s37_*``)."""

from __future__ import annotations

import pytest

from neural_debugger.model_backend.return_names import ReturnNames, class_of

SOURCE = """\
class Shape:
    def __init__(self, name):
        self.name = name

    def describe(self):
        return self.name

    @classmethod
    def plain(cls):
        return cls("plain")

    @property
    def size(self):
        return 1


class Rect(Shape):
    def __init__(self, w):
        super().__init__("rect")

    area = None


class Tagged(dict):
    def tag(self):
        return 1
"""


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        ("Rect(name='rect', w=2)", "Rect"),
        ("Rect()", "Rect"),
        ("<class '__main__.Rect'>", "Rect"),
        ("<class 'pkg.mod.Outer.Rect'>", "Rect"),
        ("<mod.Rect object>", "Rect"),
        ("[1, 2]", None),
        ("'Rect('", None),
        ("datetime.date(2020, 1, 1)", None),
        ("<repr failed: AttributeError>", None),
        (None, None),
    ],
)
def test_the_class_an_objects_text_shows(text: str | None, owner: str | None) -> None:
    assert class_of(text) == owner


@pytest.mark.parametrize(
    ("function", "first_line", "static", "value", "shown"),
    [
        ("__init__", 18, "Rect.__init__", "Rect(name='rect')", "Rect.__init__"),
        # run through super() for a Rect: Rect's own __init__ is another function
        ("__init__", 2, "Shape.__init__", "Rect(name='rect')", "__init__"),
        ("__init__", 2, "Shape.__init__", "Shape()", "Shape.__init__"),
        # inherited: named by the object's class, not where it is written
        ("describe", 5, "Shape.describe", "Rect(name='rect')", "Rect.describe"),
        ("plain", 8, "Shape.plain", "<class '__main__.Rect'>", "Rect.plain"),
        # a property's getter is not what the class attribute is: as written (bare)
        ("size", 12, "size", "Rect(name='rect')", "size"),
        # an unbound first variable: bare
        ("describe", 5, "Shape.describe", None, "describe"),
        # a text naming no class of the program (a builtin value, a model's wrong guess for
        # a ``self``, another module's object): as written
        ("describe", 5, "Shape.describe", "[1, 2]", "Shape.describe"),
        ("describe", 5, "Shape.describe", "'alpha'", "Shape.describe"),
        ("describe", 5, "Shape.describe", "Counter({'a': 1})", "Shape.describe"),
        ("area", 30, "area", "Rect(w=2)", "area"),
        # a base from another module may hold the name first: as written
        ("tag", 25, "Tagged.tag", "Tagged()", "Tagged.tag"),
        # a text that names no class: as written
        ("describe", 5, "Shape.describe", "<repr failed: ValueError>", "Shape.describe"),
    ],
)
def test_return_names_follow_the_first_variables_class(
    function: str, first_line: int, static: str, value: str | None, shown: str
) -> None:
    assert ReturnNames(SOURCE).name(function, first_line, static, value) == shown


def test_a_class_with_its_own_repr_keeps_the_name_as_written() -> None:
    source = SOURCE + (
        "\n\nclass Point(Rect):\n    def __repr__(self):\n        return f'P({self.name})'\n"
    )
    names = ReturnNames(source)
    # a Point writes its own text, which may name it or not: the name as written
    assert names.name("describe", 5, "Shape.describe", "Point(1)") == "Shape.describe"
    assert names.name("describe", 5, "Shape.describe", "P(rect)") == "Shape.describe"
    assert names.name("describe", 5, "Shape.describe", "1/3") == "Shape.describe"
    # the tracer's text of a class without one still names its class
    assert names.name("describe", 5, "Shape.describe", "Rect()") == "Rect.describe"


def test_a_class_defined_twice_is_not_followed() -> None:
    source = SOURCE + "\n\nclass Rect:\n    def describe(self):\n        return 2\n"
    names = ReturnNames(source)
    assert names.name("describe", 5, "Shape.describe", "Rect()") == "Shape.describe"


def test_a_method_defined_under_an_if_keeps_the_name_as_written() -> None:
    source = "class A:\n    if True:\n        def f(self):\n            return 1\n"
    assert ReturnNames(source).name("f", 3, "A.f", "A()") == "A.f"
