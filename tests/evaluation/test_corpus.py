"""Tests for the evaluation corpus: size, determinism, runnability and construct coverage."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

from neural_debugger.evaluation import corpus as corpus_module

corpus = corpus_module.corpus

# Runs every program twice in one process: once plainly (timed), once under a line-counting
# sys.settrace. Reports one JSON object per program. A program's uncaught exception is
# recorded, not fatal; a program that runs past 5 s is stopped by SIGALRM.
RUNNER = r"""
import contextlib, io, json, signal, sys, time


class RunnerTimeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise RunnerTimeout()


signal.signal(signal.SIGALRM, on_alarm)


def run(prog, traced):
    filename = "<corpus:" + prog["name"] + ">"
    try:
        code = compile(prog["source"], filename, "exec")
    except SyntaxError:
        return {"status": "raised", "error": "SyntaxError", "value": None, "stdout": "",
                "seconds": 0.0, "lines": 0, "traced": None}
    name = "__main__" if prog["entry"] is None else "corpus_mod"
    namespace = {"__name__": name, "__builtins__": __builtins__}
    counts = {"lines": 0}

    def local(frame, event, arg):
        if event == "line":
            counts["lines"] += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename == filename else None

    buf = io.StringIO()
    status, error, value = "ok", None, None
    start = time.perf_counter()
    signal.alarm(5)
    try:
        with contextlib.redirect_stdout(buf):
            if traced:
                sys.settrace(tracer)
            try:
                exec(code, namespace)
                if prog["entry"] is not None:
                    value = repr(eval(prog["entry"], namespace))
            finally:
                sys.settrace(None)
    except RunnerTimeout:
        status = "timeout"
    except Exception as exc:
        status, error = "raised", type(exc).__name__
    finally:
        signal.alarm(0)
    elapsed = time.perf_counter() - start
    return {"status": status, "error": error, "value": value, "stdout": buf.getvalue(),
            "seconds": elapsed, "lines": counts["lines"]}


programs = json.load(open(sys.argv[1]))
report = []
for prog in programs:
    plain = run(prog, False)
    traced = run(prog, True)
    plain["traced"] = traced
    report.append(plain)
json.dump(report, sys.stdout)
"""

# Character pairs that must never occur in the corpus (built up so this file has none).
FORBIDDEN = ("<" + "|", "|" + ">")

EXPECTED_ERRORS = {
    "ValueError",
    "KeyError",
    "ZeroDivisionError",
    "IndexError",
    "InsufficientFunds",
    "ConfigError",
    "ValidationError",
}


# SHA-256 digests of the corpus as it was when its snippets were plain strings in corpus.py:
# moving the snippets into files (or any other refactoring) must not change a program.
CORPUS_DIGEST = "42b94ec3c0414f09e800a5924793e1d9bb9b8ca31109ac07f031b214d19df23d"
SNIPPETS_DIGEST = "6107a36acd4527dafb1171a6a5ad468f5ea6ac33171d9507dc4cf05b1ed60706"
SNIPPET_COUNT = 123


def _digest(parts: list[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _run_all(tmp_path: Path, hash_seed: str, tag: str, seed: int = 0) -> list[dict[str, object]]:
    programs = [asdict(p) for p in corpus(240, seed)]
    data = tmp_path / f"programs_{tag}.json"
    data.write_text(json.dumps(programs))
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    proc = subprocess.run(
        [sys.executable, str(runner), str(data)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert len(report) == len(programs)
    return report


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, object]]]:
    tmp = tmp_path_factory.mktemp("corpus_runs")
    return {
        "first": _run_all(tmp, "0", "first"),
        "second": _run_all(tmp, "0", "second"),
        "other_seed": _run_all(tmp, "123", "other"),
        "corpus_seed_1": _run_all(tmp, "0", "corpus1", seed=1),
    }


def _outcome(entry: dict[str, object]) -> tuple[object, ...]:
    return (entry["status"], entry["error"], entry["value"], entry["stdout"])


def _has_self_call(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Call)
                    and isinstance(inner.func, ast.Name)
                    and inner.func.id == node.name
                ):
                    return True
    return False


def _has_comprehension(tree: ast.AST) -> bool:
    kinds = ast.ListComp | ast.SetComp | ast.DictComp
    return any(isinstance(node, kinds) for node in ast.walk(tree))


def test_size_names_and_distinct_sources() -> None:
    programs = corpus()
    assert len(programs) >= 240
    names = [p.name for p in programs]
    assert len(set(names)) == len(names)
    for name in names:
        assert name.replace("_", "").isalnum() and name.isascii(), name
    assert len({p.source for p in programs}) >= 200


def test_deterministic() -> None:
    assert corpus() == corpus()
    assert corpus(30, seed=5) == corpus(30, seed=5)
    assert corpus(30, seed=5) != corpus(30, seed=6)
    assert len(corpus(17, seed=3)) == 17


def test_sources_compile_and_are_well_formed() -> None:
    for prog in corpus() + corpus(240, seed=1) + corpus(240, seed=2):
        assert prog.source.endswith("\n"), prog.name
        compile(prog.source, prog.name, "exec")
        assert not any(marker in prog.source for marker in FORBIDDEN), prog.name
        if prog.entry is not None:
            assert not any(marker in prog.entry for marker in FORBIDDEN), prog.name
            assert isinstance(ast.parse(prog.entry, mode="eval").body, ast.Call), prog.name
        for banned in ("input(", "open(", "import random", "import time", "id(", "hash("):
            assert banned not in prog.source, (prog.name, banned)


def test_snippets_compile_and_have_unique_top_level_names() -> None:
    snippets = corpus_module._SNIPPETS
    assert len(snippets) >= 70
    owner: dict[str, str] = {}
    for snippet in snippets:
        tree = ast.parse(snippet.source)
        for node in tree.body:
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            for name in names:
                assert name not in owner, (name, snippet.key, owner.get(name))
                owner[name] = snippet.key
        assert snippet.call in owner and owner[snippet.call] == snippet.key


def test_programs_run_and_are_repeatable(runs: dict[str, list[dict[str, object]]]) -> None:
    programs = corpus()
    first, second = runs["first"], runs["second"]
    for prog, a, b in zip(programs, first, second, strict=True):
        assert a["status"] != "timeout", prog.name
        assert float(a["seconds"]) < 5.0, prog.name
        assert _outcome(a) == _outcome(b), prog.name
        traced = a["traced"]
        assert isinstance(traced, dict)
        assert _outcome(traced) == _outcome(a), prog.name
        assert len(str(a["stdout"]).splitlines()) <= 15, prog.name


def test_programs_do_not_depend_on_hash_seed(runs: dict[str, list[dict[str, object]]]) -> None:
    for prog, a, b in zip(corpus(), runs["first"], runs["other_seed"], strict=True):
        assert _outcome(a) == _outcome(b), prog.name


def test_programs_are_small(runs: dict[str, list[dict[str, object]]]) -> None:
    for prog, result in zip(corpus(), runs["first"], strict=True):
        traced = result["traced"]
        assert isinstance(traced, dict)
        assert 0 < int(traced["lines"]) <= 2000, (prog.name, traced["lines"])
        assert float(result["seconds"]) < 0.5, (prog.name, result["seconds"])


def test_uncaught_exception_share(runs: dict[str, list[dict[str, object]]]) -> None:
    programs = corpus()
    failed = [
        (prog, result)
        for prog, result in zip(programs, runs["first"], strict=True)
        if result["status"] == "raised"
    ]
    share = len(failed) / len(programs)
    assert 0.04 <= share <= 0.15, share
    for prog, result in failed:
        assert result["error"] in EXPECTED_ERRORS, (prog.name, result["error"])
    assert any(prog.entry is None for prog, _ in failed)
    assert any(prog.entry is not None for prog, _ in failed)


def test_modes_mixed() -> None:
    programs = corpus()
    entry_share = sum(p.entry is not None for p in programs) / len(programs)
    assert 0.2 <= entry_share <= 0.45, entry_share


def test_construct_coverage() -> None:
    programs = corpus()
    trees = {p.name: ast.parse(p.source) for p in programs}
    counts: Counter[str] = Counter()
    for prog in programs:
        for needle in ("yield", "class ", "try:", "lambda", "while ", "with "):
            if needle in prog.source:
                counts[needle] += 1
        if _has_comprehension(trees[prog.name]):
            counts["comprehension"] += 1
        if _has_self_call(trees[prog.name]):
            counts["recursion"] += 1
        if "global " in prog.source:
            counts["global"] += 1
        if "nonlocal " in prog.source:
            counts["nonlocal"] += 1
    for construct in (
        "yield",
        "class ",
        "try:",
        "lambda",
        "while ",
        "with ",
        "comprehension",
        "recursion",
    ):
        assert counts[construct] >= 10, (construct, counts[construct])
    assert counts["global"] >= 3 and counts["nonlocal"] >= 3, counts


def test_duplicate_lines_within_programs() -> None:
    with_duplicates = 0
    for prog in corpus():
        lines = Counter(line for line in prog.source.splitlines() if line.strip())
        if any(count >= 2 for count in lines.values()):
            with_duplicates += 1
    assert with_duplicates >= 20, with_duplicates


def test_other_corpus_seed_runs_cleanly(runs: dict[str, list[dict[str, object]]]) -> None:
    programs = corpus(240, seed=1)
    report = runs["corpus_seed_1"]
    failed = 0
    for prog, result in zip(programs, report, strict=True):
        assert result["status"] in ("ok", "raised"), prog.name
        if result["status"] == "raised":
            failed += 1
            assert result["error"] in EXPECTED_ERRORS, (prog.name, result["error"])
        traced = result["traced"]
        assert isinstance(traced, dict)
        assert int(traced["lines"]) <= 2000, (prog.name, traced["lines"])
    assert 0.04 <= failed / len(programs) <= 0.15


def test_corpus_is_unchanged() -> None:
    parts = [f"{p.name}\n{p.entry!r}\n{p.source}" for seed in (0, 1, 2) for p in corpus(240, seed)]
    assert _digest(parts) == CORPUS_DIGEST


def test_snippet_library_is_unchanged() -> None:
    snippets = corpus_module._SNIPPETS
    assert len(snippets) == SNIPPET_COUNT
    parts = [f"{s.key}\n{s.call}\n{s.source}" for s in snippets]
    assert _digest(parts) == SNIPPETS_DIGEST


def test_every_snippet_file_is_in_the_library_and_read_as_is() -> None:
    folder = corpus_module.SNIPPET_DIR
    keys = [s.key for s in corpus_module._SNIPPETS]
    assert sorted(p.stem for p in folder.glob("*.py")) == sorted(keys)
    for snippet in corpus_module._SNIPPETS:
        assert (folder / f"{snippet.key}.py").read_text(encoding="utf-8") == snippet.source


def test_a_missing_snippet_file_is_named_in_the_error() -> None:
    with pytest.raises(FileNotFoundError, match="no_such_snippet"):
        corpus_module._snip("no_such_snippet", "f", lambda rng: "")
