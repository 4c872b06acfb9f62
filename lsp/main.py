"""``ndb lsp``: the language server over stdio, as editors start it."""

from __future__ import annotations

import argparse
import sys

from neural_debugger.model_backend.api import add_engine_arguments

from .options import BACKENDS, DEFAULT_MAX_STEPS, Options, OptionsError


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "lsp",
        help="a language server (stdio) that shows predicted values in the editor",
        description="A language server over stdio: inlay hints, hovers and code lenses with the "
        "values predicted for each '# ndb: CALL' annotation. The client's initializationOptions "
        "(backend, model, maxSteps, debounceSeconds) override these defaults.",
    )
    add_engine_arguments(
        p,
        BACKENDS,
        "local: the embedded model (default); oracle: a real run (executes the program)",
    )
    p.add_argument(
        "--max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        help=f"predicted steps per annotation (default {DEFAULT_MAX_STEPS})",
    )
    p.add_argument(
        "--stdio",
        action="store_true",
        help="accepted for LSP clients that pass it; stdio is the only transport",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .server import build_server  # pygls is imported only when the server starts

    try:
        defaults = Options(backend=args.backend, model=args.model, max_steps=args.max_steps)
    except OptionsError as err:
        print(f"ndb lsp: error: {err}", file=sys.stderr)
        return 2
    build_server(defaults).start_io()
    return 0
