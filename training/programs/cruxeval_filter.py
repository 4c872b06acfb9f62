"""Keep CruxEval out of the training data: drop programs that contain a CruxEval function.

Why: CruxEval is evaluation data. The generator never reads it, but a random generator (or a
standard-library function) could still produce one of its functions by chance, under other
names. A function is compared in a normal form: docstrings and comments dropped, every
function renamed ``f``, every argument and local variable renamed ``v0, v1, ...`` in order of
first appearance, then printed with :func:`ast.unparse`. Two functions that differ only in
names, comments, docstrings or layout have the same normal form.

The dataset is read only here, only to build the set of normal forms to filter against.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from pathlib import Path

from neural_debugger.paths import cruxeval_path

from .base import TrainingProgram

DEFAULT_PATH = cruxeval_path()

_FUNCTIONS = ast.FunctionDef | ast.AsyncFunctionDef


def _drop_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return body or [ast.Pass()]


def _arguments(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args]
    if args.vararg:
        out.append(args.vararg)
    out.extend(args.kwonlyargs)
    if args.kwarg:
        out.append(args.kwarg)
    return out


def _bound_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names the function binds (arguments and locals, nested scopes included)."""
    bound: set[str] = set()
    declared_global: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Global | ast.Nonlocal):
            declared_global.update(node.names)
        elif isinstance(node, ast.arguments):
            bound.update(a.arg for a in _arguments(node))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif (isinstance(node, ast.MatchAs | ast.MatchStar) and node.name) or isinstance(
            node, ast.ClassDef
        ):
            bound.add(node.name)  # type: ignore[arg-type]
    return bound - declared_global


class _Renamer(ast.NodeTransformer):
    """Renames functions to ``f`` and bound names to ``v0, v1, ...`` by first appearance."""

    def __init__(self, bound: set[str], function_names: set[str]) -> None:
        self.bound = bound
        self.function_names = function_names
        self.mapping: dict[str, str] = {}

    def canonical(self, name: str) -> str:
        if name in self.function_names:
            return "f"
        if name not in self.bound:
            return name
        if name not in self.mapping:
            self.mapping[name] = f"v{len(self.mapping)}"
        return self.mapping[name]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = "f"
        node.body = _drop_docstring(node.body)
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        node.returns = None
        node.body = [self.visit(stmt) for stmt in node.body]
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.name = "f"
        node.body = _drop_docstring(node.body)
        node.args = self.visit(node.args)
        node.returns = None
        node.body = [self.visit(stmt) for stmt in node.body]
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = _drop_docstring(node.body)
        node.name = self.canonical(node.name)
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.canonical(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.canonical(node.id)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        if node.type is not None:
            node.type = self.visit(node.type)
        if node.name:
            node.name = self.canonical(node.name)
        node.body = [self.visit(stmt) for stmt in node.body]
        return node

    def visit_Global(self, node: ast.Global) -> ast.AST:
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.AST:
        node.names = [self.canonical(n) for n in node.names]
        return node


def _normalize_node(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    function_names = {n.name for n in ast.walk(node) if isinstance(n, _FUNCTIONS)}
    bound = _bound_names(node) - function_names
    renamed = _Renamer(bound, function_names).visit(node)
    return ast.unparse(ast.fix_missing_locations(renamed))


def normalize_function(source: str) -> str:
    """The normal form of a function definition (``source`` holds one ``def``).

    If ``source`` holds several top-level functions, their normal forms are joined with
    blank lines; use :func:`functions_of` to get them one by one.
    """
    tree = ast.parse(source)
    funcs = [n for n in tree.body if isinstance(n, _FUNCTIONS)]
    if not funcs:
        raise ValueError("no function definition in the source")
    return "\n\n".join(_normalize_node(f) for f in funcs)


def functions_of(source: str) -> list[str]:
    """The normal forms of every top-level function (and method) in a module."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            out.append(_normalize_node(node))
        elif isinstance(node, ast.ClassDef):
            out.extend(_normalize_node(n) for n in node.body if isinstance(n, _FUNCTIONS))
    return out


class CruxEvalFilter:
    """Matches programs that contain any CruxEval function, up to names and docstrings."""

    def __init__(self, path: str | Path = DEFAULT_PATH) -> None:
        self.path = Path(path)
        self.normal_forms: set[str] = set()
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                code = json.loads(line)["code"]
                self.normal_forms.update(functions_of(code))

    def __len__(self) -> int:
        return len(self.normal_forms)

    def matches(self, program: TrainingProgram) -> bool:
        """True if any function of the program normalizes to a CruxEval function."""
        return any(form in self.normal_forms for form in functions_of(program.source))


def filter_programs(
    programs: Iterable[TrainingProgram], cruxeval_filter: CruxEvalFilter
) -> tuple[list[TrainingProgram], int]:
    """The programs that match no CruxEval function, and how many were dropped."""
    kept: list[TrainingProgram] = []
    dropped = 0
    for program in programs:
        if cruxeval_filter.matches(program):
            dropped += 1
        else:
            kept.append(program)
    return kept, dropped
