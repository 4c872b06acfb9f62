"""Training programs: deterministic, valid under the real tracer, varied, and free of CruxEval."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.programs import TrainingProgram, generate_programs
from neural_debugger.training.programs.constructs import constructs, normalized_module
from neural_debugger.training.programs.cruxeval_filter import (
    CruxEvalFilter,
    filter_programs,
    functions_of,
    normalize_function,
)
from neural_debugger.training.programs.stdlib import catalog, verify

CRUXEVAL = Path(__file__).resolve().parents[2].parent / "shared/benchmarks/cruxeval.jsonl"
LIMITS = TraceLimits(max_events=600, max_seconds=1.0)


@pytest.fixture(scope="module")
def programs() -> list[TrainingProgram]:
    return generate_programs(0, 300)


@pytest.fixture(scope="module")
def crux() -> CruxEvalFilter:
    if not CRUXEVAL.exists():
        pytest.skip(f"{CRUXEVAL} is not on this machine")
    return CruxEvalFilter(CRUXEVAL)


def line_events(program: TrainingProgram) -> tuple[int, ExitKind]:
    loaded = load_program("program.py", entry=program.entry, source=program.source)
    trace = record(loaded, LIMITS)
    return sum(1 for ev in trace.events if ev.kind == "line"), trace.exit


# ---------------------------------------------------------------------- determinism


def test_same_seed_same_programs() -> None:
    assert generate_programs(7, 25) == generate_programs(7, 25)


def test_different_seeds_differ() -> None:
    a = {p.source + str(p.entry) for p in generate_programs(1, 25)}
    b = {p.source + str(p.entry) for p in generate_programs(2, 25)}
    assert len(a & b) <= 2


# ---------------------------------------------------------------------- validity


def test_every_program_traces_within_limits(programs: list[TrainingProgram]) -> None:
    errors = 0
    generated = 0
    for program in programs:
        assert program.source.endswith("\n")
        assert "<|" not in program.source and "|>" not in program.source
        compile(program.source, "program.py", "exec")
        if program.origin == "generated:script":
            assert program.entry is None
        else:
            assert program.entry is not None
        lines, exit_kind = line_events(program)
        assert 5 <= lines <= 400, (program.origin, lines, program.source)
        assert exit_kind != ExitKind.NEVER
        if program.origin.startswith("generated:"):
            generated += 1
            errors += exit_kind == ExitKind.ERROR
        else:
            assert exit_kind == ExitKind.NORMAL, program.origin
    assert 0.01 <= errors / generated <= 0.12, (errors, generated)


def test_origin_shares(programs: list[TrainingProgram]) -> None:
    kinds = Counter(p.origin if p.origin.startswith("generated:") else "stdlib" for p in programs)
    n = len(programs)
    assert 0.08 <= kinds["stdlib"] / n <= 0.25
    assert 0.08 <= kinds["generated:script"] / n <= 0.25
    assert 0.55 <= kinds["generated:function"] / n <= 0.82
    assert all(p.origin.startswith(("generated:", "stdlib:")) for p in programs)


def test_construct_coverage(programs: list[TrainingProgram]) -> None:
    counts: Counter[str] = Counter()
    for program in programs:
        if program.origin.startswith("generated:"):
            counts.update(constructs(program.source))
    wanted = {
        "for": 100, "while": 40, "class": 25, "recursion": 25, "comprehension": 80,
        "try": 40, "yield": 20, "lambda": 25, "dict_methods": 40, "str_methods": 80,
        "list_methods": 80, "for_range": 30, "for_enumerate": 15, "break": 20,
        "continue": 10, "fstring": 40, "raise": 20, "nested_loop": 10, "helper_call": 80,
        "tuple_unpack": 40, "set_methods": 8, "print": 20,
    }  # fmt: skip
    missing = {k: (counts[k], v) for k, v in wanted.items() if counts[k] < v}
    assert not missing, missing


def test_sources_are_diverse(programs: list[TrainingProgram]) -> None:
    generated = [p for p in programs if p.origin.startswith("generated:")]
    normal = {normalized_module(p.source) for p in generated}
    assert len(normal) >= 0.97 * len(generated)


# ---------------------------------------------------------------------- standard library


def test_stdlib_catalog_is_real_and_runs() -> None:
    functions = catalog()
    assert len(functions) >= 40
    modules = {f.spec.module for f in functions}
    assert len(modules) >= 12
    for function in functions:
        assert verify(function.spec, function.source, samples=1), function.spec.origin
        assert f"def {function.spec.name}(" in function.source
        assert "site-packages" not in function.source


def test_stdlib_programs_call_their_function(programs: list[TrainingProgram]) -> None:
    stdlib = [p for p in programs if p.origin.startswith("stdlib:")]
    assert len({p.origin for p in stdlib}) >= 15
    for program in stdlib:
        name = program.origin.rsplit(".", 1)[-1]
        assert program.entry is not None and name in program.entry


# ---------------------------------------------------------------------- CruxEval filter


RENAMED_A = '''
def count_pairs(nums, target):
    """Count the pairs that add up to target."""
    total = 0  # running count
    for i in range(len(nums)):
        for j in range(i + 1, len(nums)):
            if nums[i] + nums[j] == target:
                total += 1
    return total
'''

RENAMED_B = """
def f(xs, goal):
    n = 0
    for a in range(len(xs)):

        for b in range(a + 1, len(xs)):
            if xs[a] + xs[b] == goal:   # found one
                n += 1
    return n
"""


def test_normalize_is_invariant_to_names_docstrings_and_comments() -> None:
    assert normalize_function(RENAMED_A) == normalize_function(RENAMED_B)
    changed = RENAMED_B.replace("n += 1", "n += 2")
    assert normalize_function(changed) != normalize_function(RENAMED_A)
    assert "count_pairs" not in normalize_function(RENAMED_A)
    assert normalize_function(RENAMED_A).startswith("def f(v0, v1):")


def test_functions_of_finds_every_function() -> None:
    source = RENAMED_A + "\n\nclass Box:\n    def size(self):\n        return 1\n" + RENAMED_B
    forms = functions_of(source)
    assert len(forms) == 3
    assert forms[0] == forms[2]


class _Rename(ast.NodeTransformer):
    """Renames every argument, local variable and the function itself."""

    def __init__(self, bound: set[str]) -> None:
        self.bound = bound

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = "renamed_function"
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = f"my_{node.arg}"
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.bound:
            node.id = f"my_{node.id}"
        elif node.id == "f":
            node.id = "renamed_function"
        return node


def test_a_renamed_cruxeval_function_is_matched(crux: CruxEvalFilter) -> None:
    with CRUXEVAL.open(encoding="utf-8") as handle:
        code = json.loads(handle.readline())["code"]
    tree = ast.parse(code)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    bound = {a.arg for a in func.args.args} | {
        n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    renamed = ast.unparse(_Rename(bound).visit(tree))
    assert "renamed_function" in renamed and renamed != code
    source = f'"""A program."""\n\nLIMIT = 3\n\n\n{renamed}\n'
    program = TrainingProgram(source, "renamed_function([1, 2])", "generated:function")
    assert crux.matches(program)
    kept, dropped = filter_programs([program], crux)
    assert kept == [] and dropped == 1


def test_generated_programs_are_mostly_not_cruxeval(
    programs: list[TrainingProgram], crux: CruxEvalFilter
) -> None:
    kept, dropped = filter_programs(programs, crux)
    assert dropped <= len(programs) // 100
    assert len(kept) + dropped == len(programs)


def test_independent_of_hash_seed() -> None:
    """Same programs in fresh processes with different hash seeds (no set-order leaks)."""
    script = (
        "import hashlib\n"
        "from neural_debugger.training.programs import generate_programs\n"
        "print(hashlib.sha256(repr(generate_programs(11, 20)).encode()).hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1
