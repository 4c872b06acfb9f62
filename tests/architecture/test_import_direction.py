"""Data flows one way: protocol <- tracer <- model_backend <- server, lsp (and the terminal).

Training and evaluation may import the runtime; the runtime never imports them. The check reads
every module's import statements (top level and inside functions), so a lazy import that would
pull training into a debug session fails here too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]

RUNTIME = {"protocol", "tracer", "model_backend", "paths"}
# What each top-level package may import from the others (besides itself).
ALLOWED: dict[str, set[str]] = {
    "protocol": set(),
    "tracer": {"protocol"},
    "model_backend": {"protocol", "tracer", "paths"},
    "server": RUNTIME,
    "lsp": RUNTIME,
    # The MCP server shows values exactly as the DAP server does, with its rendering.
    "mcp_server": RUNTIME | {"server"},
    "training": RUNTIME,
    "evaluation": RUNTIME | {"training"},
}
# The core package: `paths` stands alone; `cli` dispatches every subcommand (lazily).
CORE_ALLOWED: dict[str, set[str] | None] = {
    "__init__": set(),
    "__main__": {"cli"},
    "paths": set(),
    "cli": None,
}


def imported_packages(path: Path, package: str) -> set[str]:
    """The ``neural_debugger`` subpackages (first component) one module imports."""
    found: set[str] = set()
    # How deep the module sits below its top-level folder: ``from ..x`` in a subpackage
    # (training/programs/statements/) still names a module of the same top-level package.
    top = REPOSITORY / package
    depth = len(path.relative_to(top).parts) - 1 if package and path.is_relative_to(top) else 0
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names = [node.module or ""]
            elif node.level <= depth + 1:
                names = [f"neural_debugger.{package}.{node.module or ''}"]
            else:
                names = [f"neural_debugger.{node.module or ''}"]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "neural_debugger" and len(parts) > 1 and parts[1]:
                found.add(parts[1])
    found.discard(package)
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_its_layer_may(package: str) -> None:
    wrong = {
        str(path.relative_to(REPOSITORY)): sorted(extra)
        for path in sorted((REPOSITORY / package).rglob("*.py"))
        if (extra := imported_packages(path, package) - ALLOWED[package])
    }
    assert not wrong, f"{package} imports across the layers: {wrong}"


def test_core_modules_import_only_what_they_may() -> None:
    for path in sorted((REPOSITORY / "neural_debugger").glob("*.py")):
        allowed = CORE_ALLOWED.get(path.stem, set())
        if allowed is None:
            continue
        assert imported_packages(path, "") - {""} <= allowed, path.name


def test_the_language_needs_no_torch() -> None:
    """``protocol/`` is the language alone: parsing a state must not load a model library."""
    for path in (REPOSITORY / "protocol").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not roots & {"torch", "tokenizers", "safetensors", "vllm"}, path.name


def test_the_check_sees_a_lazy_import(tmp_path: Path) -> None:
    """The reader finds an import inside a function, as a lazy cross-layer import would be."""
    module = tmp_path / "lazy.py"
    module.write_text("def f():\n    from neural_debugger.training.train import train\n")
    assert imported_packages(module, "model_backend") == {"training"}
