"""A program to trace: its source, how it is entered, and the code context the model reads.

Two entry kinds:

* a script, run as ``__main__``; its module-level code is the first frame;
* a function call given as an expression (``f([1, 2])``): the module is executed untraced under
  its own name (so an ``if __name__ == "__main__":`` block does not run), then the call is traced
  through a wrapper ``def main():\\n    return f([1, 2])``, as in the paper.

The code context is the program's source with trailing blank lines removed; in entry mode the
wrapper follows after one blank line. Context lines are numbered from 1, and
:meth:`Program.location` maps a context line back to a real file and line (the wrapper lives in
the pseudo file ``<entry>``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from neural_debugger.protocol.tokens import find_special_token

ENTRY_FILE = "<entry>"
WRAPPER_NAME = "main"
WRAPPER_FALLBACK_NAME = "ndb_main"  # when the program itself defines a top-level `main`


class ProgramError(ValueError):
    """The program cannot be traced at all: missing file, syntax error, bad entry expression."""


def split_lines(source: str) -> list[str]:
    """Physical lines as Python numbers them (``\\n``, ``\\r\\n`` and ``\\r`` end a line)."""
    return source.replace("\r\n", "\n").replace("\r", "\n").split("\n")


@dataclass(frozen=True)
class Program:
    """A loaded, syntactically valid program with its entry and code context."""

    path: str
    source: str
    entry: str | None = None
    lines: tuple[str, ...] = field(init=False)
    context: str = field(init=False)
    wrapper: str | None = field(init=False)

    def __post_init__(self) -> None:
        lines = split_lines(self.source)
        object.__setattr__(self, "lines", tuple(lines))
        body = self.function_context
        wrapper = None
        if self.entry is not None:
            wrapper = f"def {self.wrapper_name}():\n    return {self.entry}"
            body = f"{body}\n\n{wrapper}" if body else wrapper
        object.__setattr__(self, "wrapper", wrapper)
        object.__setattr__(self, "context", body)

    @property
    def wrapper_name(self) -> str:
        """``main``, unless the program defines a top-level ``main`` of its own."""
        try:
            tree = ast.parse(self.source)
        except SyntaxError:
            return WRAPPER_NAME
        for node in tree.body:
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names = [(a.asname or a.name).split(".")[0] for a in node.names]
            if WRAPPER_NAME in names:
                return WRAPPER_FALLBACK_NAME
        return WRAPPER_NAME

    @property
    def function_context(self) -> str:
        """The program's source without trailing blank lines and without the entry wrapper."""
        shown = list(split_lines(self.source))
        while shown and not shown[-1].strip():
            shown.pop()
        return "\n".join(shown)

    @property
    def module_name(self) -> str:
        """``__main__`` for a script; for an entry call, the file's stem, as an import names it."""
        return "__main__" if self.entry is None else Path(self.path).stem or "program"

    @property
    def wrapper_first_context_line(self) -> int | None:
        if self.wrapper is None:
            return None
        return self.context.count("\n")

    def context_line(self, file: str, line: int) -> int:
        """The context line that shows ``file:line``."""
        if file == ENTRY_FILE:
            first = self.wrapper_first_context_line
            assert first is not None
            return first + line - 1
        return line

    def location(self, context_line: int) -> tuple[str, int]:
        """The real ``(file, line)`` behind a context line."""
        first = self.wrapper_first_context_line
        if first is not None and context_line >= first:
            return ENTRY_FILE, context_line - first + 1
        return self.path, context_line

    def source_line(self, file: str, line: int) -> str:
        """The text of a physical line (empty when out of range)."""
        lines = self.wrapper_lines if file == ENTRY_FILE else self.lines
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    @property
    def wrapper_lines(self) -> tuple[str, ...]:
        return tuple(self.wrapper.split("\n")) if self.wrapper else ()


def check_entry(entry: str) -> str:
    """Validate an entry call expression; returns it stripped."""
    entry = entry.strip()
    if not entry:
        raise ProgramError("the entry expression is empty; give a call such as f([1, 2])")
    if "\n" in entry or "\r" in entry:
        raise ProgramError("the entry expression must fit on one line")
    try:
        tree = ast.parse(entry, mode="eval")
    except SyntaxError as err:
        raise ProgramError(
            f"the entry expression {entry!r} is not valid Python: {err.msg}"
        ) from None
    if not isinstance(tree.body, ast.Call):
        raise ProgramError(f"the entry expression {entry!r} must be a call, such as f([1, 2])")
    return entry


def load_program(path: str | Path, entry: str | None = None, source: str | None = None) -> Program:
    """Read and check a program; ``source`` overrides reading ``path`` (for generated code)."""
    path = str(path)
    if source is None:
        file = Path(path)
        if not file.exists():
            raise ProgramError(f"no such file: {path}")
        if not file.is_file():
            raise ProgramError(f"not a file: {path}")
        try:
            source = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise ProgramError(f"{path} is not UTF-8 text: {err}") from None
        path = str(file.resolve())
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as err:
        where = f"line {err.lineno}" if err.lineno else "unknown line"
        text = f": {err.text.strip()}" if err.text else ""
        raise ProgramError(f"syntax error in {path}, {where}: {err.msg}{text}") from None
    except ValueError as err:  # e.g. source with NUL bytes
        raise ProgramError(f"{path} cannot be compiled: {err}") from None
    token = find_special_token(source)
    if token is not None:
        raise ProgramError(f"{path} contains {token}, a token of the debugger language")
    if entry is not None:
        entry = check_entry(entry)
        token = find_special_token(entry)
        if token is not None:
            raise ProgramError(f"the entry expression contains {token}")
    return Program(path=path, source=source, entry=entry)
