"""The ``ndb`` command: one subcommand per job, each defined beside the code it drives."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from neural_debugger import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ndb",
        description="A neural debugger for Python: predicted debugging, real tracing, training.",
    )
    parser.add_argument("--version", action="version", version=f"ndb {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", required=True)
    from neural_debugger.evaluation import cli as evaluation_cli
    from neural_debugger.lsp import main as lsp_server
    from neural_debugger.mcp_server import main as mcp_server
    from neural_debugger.model_backend import serve_model, terminal
    from neural_debugger.server import main as dap_server
    from neural_debugger.tracer import cli as tracer_cli
    from neural_debugger.training import cli as training_cli

    terminal.add_parser(commands)
    dap_server.add_parser(commands)
    serve_model.add_parser(commands)
    lsp_server.add_parser(commands)
    mcp_server.add_parser(commands)
    tracer_cli.add_parser(commands)
    training_cli.add_parsers(commands)
    evaluation_cli.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print("ndb: interrupted", file=sys.stderr)
        return 130
