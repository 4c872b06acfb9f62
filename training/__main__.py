"""``python -m neural_debugger.training data|train``: the training commands alone.

The same commands as ``ndb data`` and ``ndb train``, without importing the debugger's other
commands (the DAP and LSP servers and the terminal session need anyio, pygls and debugpy). The
packed data Python of a lent GPU machine (training/device_kit.py) holds only what making data
needs, so training/device_run.sh makes its data through this entry point.
"""

from __future__ import annotations

import argparse
import sys

from .cli import add_parsers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m neural_debugger.training")
    add_parsers(parser.add_subparsers(title="commands", dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
