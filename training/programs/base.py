"""The unit of the training corpus: a program's source, how it is entered, where it came from.

Why a module of its own: the generator, the standard-library catalog and the CruxEval filter
all use this type, and none of them should import the others to get it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainingProgram:
    """One training program.

    ``entry`` is a call expression such as ``f([3, 1, 2])`` (the module is run untraced under
    its own name, then the call is traced), or None for a script run as ``__main__``.
    ``origin`` says where the code came from: ``generated:function``, ``generated:script``,
    ``stdlib:module.function``, ``package:module.function`` (an installed package) or
    ``repo:TEST_ID:module.function`` (a call sampled from a test-suite run).
    """

    source: str  # complete module source, ends with "\n"
    entry: str | None
    origin: str
