"""``ndb lsp`` spoken to over stdio by a real LSP client: hints, hovers, lenses, diagnostics.

The oracle backend gives exact values (it runs the program), so those tests check the server's
reading of a run to the character; the embedded model's test checks only the shape of what it
shows, since its predictions are not exact.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from lsp_client import ENTRY, EXAMPLE, Editor, annotated_example, line_of
from lsprotocol import types

Start = Callable[[dict[str, object]], Awaitable[Editor]]
ORACLE = {"backend": "oracle", "debounceSeconds": 0}


def labels(hints: list[types.InlayHint], source: str) -> dict[str, str]:
    """Each hint's label by the text of the line it is on, checking it sits at the line's end."""
    lines = source.split("\n")
    found = {}
    for hint in hints:
        text = lines[hint.position.line]
        assert hint.position.character == len(text), (text, hint.position)
        assert isinstance(hint.label, str)
        found[text.strip()] = hint.label
    return found


def markdown(hover: types.Hover | None) -> str:
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    return hover.contents.value


async def test_oracle_values_in_hints_hover_and_lenses(editor: Start, tmp_path: Path) -> None:
    lsp = await editor(ORACLE)
    uri = (tmp_path / "bubble_sort.py").as_uri()
    source = annotated_example()
    lsp.open(uri, source)
    assert await lsp.diagnostics(uri, 1) == []

    assert labels(await lsp.inlay_hints(uri, len(source.split("\n"))), source) == {
        "result = list(items)": "result = [3, 1, 2]",
        "swaps = 0": "swaps = 0",
        "for i in range(len(result)):": "i = 2 (×3)",
        "for j in range(len(result) - 1 - i):": "j = 0 (×3)",
        "result[j], result[j + 1] = result[j + 1], result[j]": "result = [1, 2, 3] (×2)",
        "swaps += 1": "swaps = 2 (×2)",
    }

    swaps_line = line_of(source, "swaps += 1")
    text = markdown(await lsp.hover(uri, swaps_line, source.split("\n")[swaps_line].index("swaps")))
    assert "- `0` (100% sure)\n- `1` (100% sure)\n- `2` (100% sure)" in text
    assert "real run" in text
    assert await lsp.hover(uri, line_of(source, "return result"), 6) is None  # a keyword

    lenses = await lsp.code_lenses(uri)
    annotation = line_of(source, "# ndb:")
    assert [lens.range.start.line for lens in lenses] == [annotation, annotation]
    debug, returns = (lens.command for lens in lenses)
    assert debug is not None and returns is not None
    assert (debug.title, debug.command) == (f"Neural debug {ENTRY}", "neuralDebugger.debugEntry")
    assert list(debug.arguments or ()) == [uri, ENTRY]
    assert returns.title == "→ returns [1, 2, 3] (100% sure)"
    assert "inlayHint" in lsp.refreshes and "codeLens" in lsp.refreshes


async def test_edits_are_debounced_then_predicted_again(editor: Start, tmp_path: Path) -> None:
    lsp = await editor({"backend": "oracle", "debounceSeconds": 1.5})
    uri = (tmp_path / "bubble_sort.py").as_uri()
    source = annotated_example()
    lsp.open(uri, source)
    await lsp.diagnostics(uri, 1)
    line = line_of(source, "swaps = 0")
    column = source.split("\n")[line].index("0")
    for digit in "789":  # edits closer than the debounce: only the last text is predicted
        version = lsp.replace(uri, line, column, column + 1, digit)
        await asyncio.sleep(0.4)  # long enough for an undebounced prediction to be published
    assert await lsp.diagnostics(uri, version) == []
    assert sorted(p.version for p in lsp.published if p.uri == uri) == [1, version]

    edited = source.replace("swaps = 0", "swaps = 9")
    found = labels(await lsp.inlay_hints(uri, len(edited.split("\n"))), edited)
    assert found["swaps = 9"] == "swaps = 9"
    assert found["swaps += 1"] == "swaps = 11 (×2)"

    entry_line = line_of(source, "# ndb:")
    start = source.split("\n")[entry_line].index("[3, 1, 2]")
    lsp.replace(uri, entry_line, start, start + len("[3, 1, 2]"), "[2, 1]")
    lenses = await lsp.code_lenses(uri)  # waits for the new text's prediction
    assert [lens.command.title for lens in lenses if lens.command] == [
        "Neural debug bubble_sort([2, 1])",
        "→ returns [1, 2] (100% sure)",
    ]


async def test_embedded_model_shows_predictions(editor: Start, tmp_path: Path) -> None:
    # the demo's program: the model's stops there show variables (on bubble_sort it may
    # instead step into `main` again, whose frame has none)
    lsp = await editor({"backend": "local", "maxSteps": 12, "debounceSeconds": 0})
    uri = (tmp_path / "running_total.py").as_uri()
    entry = "running_total([3, 1, 2])"
    source = (EXAMPLE.parent / "running_total.py").read_text()
    source = source.replace("def running_total(", f"# ndb: {entry}\ndef running_total(", 1)
    lsp.open(uri, source)
    await lsp.diagnostics(uri, 1)

    lines = source.split("\n")
    hints = await lsp.inlay_hints(uri, len(lines))
    for label in labels(hints, source).values():
        assert re.fullmatch(r"\w+ = \S.*", label), label
    lenses = await lsp.code_lenses(uri)
    titles = [lens.command.title for lens in lenses if lens.command]
    assert titles[0] == f"Neural debug {entry}"
    assert len(titles) == 2 and titles[1].startswith(("→ ", "ndb: cannot predict"))
    # a hover on a variable the model gave a hint for shows its predicted values, marked as such
    # (which variables the model predicts depends on the shipped weights)
    hinted = [
        (hint.position.line, found.start(), name)
        for hint in hints
        if isinstance(hint.label, str)
        and (name := hint.label.split(" = ")[0])
        and (found := re.search(rf"\b{name}\b", lines[hint.position.line]))
    ]
    assert hinted, hints
    line, column, name = hinted[0]
    text = markdown(await lsp.hover(uri, line, column))
    assert text.startswith(f"**{name}** in `running_total`")
    assert "predictions, not a real run" in text


async def test_positions_are_in_utf16_units(editor: Start, tmp_path: Path) -> None:
    lsp = await editor(ORACLE)
    uri = (tmp_path / "wide.py").as_uri()
    source = '# ndb: f("😋")\ndef f(s):\n    t = s + "😋"\n    return t\n'
    lsp.open(uri, source)
    await lsp.diagnostics(uri, 1)
    lines = source.split("\n")
    (hint,) = await lsp.inlay_hints(uri, 4)
    assert len(lines[2]) == 15 and len(lines[0]) == 13  # in code points; the emoji is 2 units
    assert (hint.position, hint.label) == (types.Position(line=2, character=16), "t = '😋😋'")
    lenses = await lsp.code_lenses(uri)
    assert {lens.range.end.character for lens in lenses} == {14}
    text = markdown(await lsp.hover(uri, 3, 11))
    assert text.startswith("**t** in `f`") and "- `'😋😋'` (100% sure)" in text


async def test_syntax_error_gets_a_diagnostic(editor: Start, tmp_path: Path) -> None:
    lsp = await editor(ORACLE)
    uri = (tmp_path / "broken.py").as_uri()
    source = "# ndb: f(1)\ndef f(x:\n    return x\n"
    lsp.open(uri, source)
    (problem,) = await lsp.diagnostics(uri, 1)
    assert problem.severity == types.DiagnosticSeverity.Error
    assert problem.range.start.line == 1 and "syntax error" in problem.message
    assert await lsp.inlay_hints(uri, 3) == []
    assert await lsp.hover(uri, 2, 12) is None
    (lens,) = await lsp.code_lenses(uri)
    assert lens.command is not None
    assert lens.command.title == "ndb: cannot predict: syntax error on line 2"


async def test_bad_annotations_and_failed_predictions(editor: Start, tmp_path: Path) -> None:
    lsp = await editor({"backend": "local", "model": str(tmp_path / "no-model")})
    uri = (tmp_path / "program.py").as_uri()
    source = "def f(x):\n    # ndb: x[0]\n    y = x * 2  # ndb: f(2)\n    return y\n"
    lsp.open(uri, source)
    not_a_call, failed = await lsp.diagnostics(uri, 1)
    assert (not_a_call.range.start.line, not_a_call.range.start.character) == (1, 4)
    assert "must be a call" in not_a_call.message
    assert failed.range.start == types.Position(line=2, character=15)
    assert failed.message.startswith("ndb: cannot predict f(2): model folder")
    assert failed.severity == types.DiagnosticSeverity.Warning
    titles = [lens.command.title for lens in await lsp.code_lenses(uri) if lens.command]
    assert titles[0].startswith("ndb: cannot predict: the entry expression 'x[0]' must be a call")
    assert titles[1] == "Neural debug f(2)"
    assert titles[2].startswith("ndb: cannot predict: model folder") and len(titles) == 3
    assert await lsp.inlay_hints(uri, 4) == []  # still answering


async def test_unknown_backend_is_reported_at_each_annotation(
    editor: Start, tmp_path: Path
) -> None:
    lsp = await editor({"backend": "orcale"})
    uri = (tmp_path / "program.py").as_uri()
    lsp.open(uri, "# ndb: f(1)\ndef f(x):\n    return x\n")
    (problem,) = await lsp.diagnostics(uri, 1)
    assert "bad initializationOptions: unknown backend 'orcale'" in problem.message
