"""The data Python: `ndb data` refuses another interpreter, and the kit packs this one whole."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from neural_debugger.cli import main
from neural_debugger.training import data
from neural_debugger.training.device_kit import distributions_needed, is_elf, kit_files, stripped


def test_ndb_data_refuses_another_python_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(data, "DATA_PYTHON", (3, sys.version_info.minor + 1))
    code = main(["data", "--out", str(tmp_path / "out"), "--programs", "4", "--workers", "1"])
    assert code == 2
    said = capsys.readouterr().out
    assert "training data is made with Python 3." in said and "--any-python" in said
    assert not (tmp_path / "out").exists()


def test_this_python_may_make_data() -> None:
    assert data.python_mismatch() is None  # the project's venv is the data Python


def test_kit_holds_the_interpreter_its_suites_and_the_packages_the_data_step_imports() -> None:
    names = {name for _, name in kit_files()}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    lib = f"lib/{version}"
    assert f"bin/{version}" in names
    assert {f"{lib}/os.py", f"{lib}/json/decoder.py", f"{lib}/test/support/__init__.py"} <= names
    assert {f"{lib}/test/test_bisect.py", f"{lib}/test/test_json/__init__.py"} <= names
    assert any(n.startswith(f"{lib}/lib-dynload/_json") for n in names)  # C modules too
    site = f"{lib}/site-packages"
    for package in ("sympy", "networkx", "pydantic_core", "_pytest", "packaging", "mpmath"):
        assert any(n.startswith(f"{site}/{package}/") for n in names), package
    # what no trajectory needs stays out: other suites, tkinter, caches, the static library
    assert f"{lib}/test/test_asyncio/__init__.py" not in names
    assert not any("/tkinter/" in n or "__pycache__" in n or "/config-3" in n for n in names)
    assert not any(n.startswith(f"{site}/torch/") for n in names)
    # the packages' test folders travel only where a suite runs from them
    assert f"{site}/sympy/utilities/tests/test_iterables.py" in names
    assert f"{site}/networkx/utils/tests/test_misc.py" in names
    assert not any(n.startswith(f"{site}/sympy/core/tests/") for n in names)
    assert f"{site}/sympy/core/basic.py" in names


def test_kit_distributions_are_closed_over_their_requirements() -> None:
    kept = {dist.metadata["Name"].lower().replace("_", "-") for dist in distributions_needed()}
    assert {"pydantic", "pydantic-core", "annotated-types", "typing-extensions"} <= kept
    assert {"pytest", "pluggy", "iniconfig", "sympy", "mpmath", "networkx"} <= kept
    assert {"hypothesis", "sortedcontainers"} <= kept  # sympy's conftest imports hypothesis
    assert "torch" not in kept and "transformers" not in kept


def test_compiled_files_travel_stripped_and_still_load(tmp_path: Path) -> None:
    if shutil.which("strip") is None:
        pytest.skip("no strip here: the kit carries compiled files as they are")
    by_name = {name: path for path, name in kit_files()}
    dynload = [path for name, path in by_name.items() if "/lib-dynload/_json." in name]
    module = next(path for path in dynload if path.name.endswith(".so"))
    small = stripped(module, tmp_path)
    assert small != module and small.stat().st_size <= module.stat().st_size
    # a stripped C module still imports and works
    spec = importlib.util.spec_from_file_location("_json", small)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    assert loaded.encode_basestring_ascii("é\n") == '"\\u00e9\\n"'
    # the interpreter's library loses its debug information, not its dynamic symbols
    library = next(path for name, path in by_name.items() if name.startswith("lib/libpython"))
    library = library.resolve()
    small = stripped(library, tmp_path)
    assert small.stat().st_size < library.stat().st_size or not is_elf(library)
    assert b"Py_Initialize" in small.read_bytes()
    # what is not compiled passes unchanged
    text = next(path for name, path in by_name.items() if name.endswith("/json/decoder.py"))
    assert stripped(text, tmp_path) == text
