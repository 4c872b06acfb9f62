"""Which real functions are held out: a fixed split by function, never by program.

Why: a program of real code is one function called with one input, so a split by program would
put the same function, with other arguments, on both sides, and held-out accuracy would measure
memory of that function rather than execution. Every standard-library, package and repository
function is therefore assigned once, by a hash of its ``module.function`` name, to training or
to the held-out side; the same function lands on the same side in every data set, whichever
origin (``stdlib``, ``package``, ``library``, ``repo``) it comes through. Generated programs are
new code each time; they are split by program (see ``ndb data --exclude``).

Whole libraries are held out too (:data:`HELDOUT_PACKAGES`, by the first part of the name):
none of their functions is ever trained on, so held-out accuracy on them measures code from
authors and packages the model has never seen, apart from unseen functions of known packages.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Side = Literal["train", "heldout", "all"]
SIDES: tuple[Side, ...] = ("train", "heldout", "all")
HELDOUT_SHARE = 0.1  # of real functions, by name hash
# Libraries of the ``library`` source held out whole; no other source reads them.
HELDOUT_PACKAGES = frozenset({"boltons", "inflection"})


def function_of(origin: str) -> str | None:
    """``module.function`` of a real-code origin; None for generated code.

    ``stdlib:json.encoder.py_encode_basestring_ascii`` and ``package:idna.intranges.f`` name the
    function after the prefix; ``repo:TEST_ID:statistics._ss`` names it after the last colon.
    A builtin drill (``drill:str.steps``) names its family: whole families are held out.
    """
    kind, _, rest = origin.partition(":")
    if kind in ("stdlib", "package", "library", "drill"):
        return rest
    if kind == "repo":
        return rest.rpartition(":")[2]
    return None


def is_heldout_function(function: str) -> bool:
    """Whether ``module.function`` belongs to the held-out side (stable across runs)."""
    if function.split(".")[0] in HELDOUT_PACKAGES:
        return True
    digest = hashlib.sha1(function.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") < HELDOUT_SHARE * 2**32


def on_side(origin: str, side: Side) -> bool:
    """Whether a program of ``origin`` may appear in data of ``side``.

    ``all`` keeps everything (no split); generated code is on both sides.
    """
    function = function_of(origin)
    return function is None or function_on_side(function, side)


def function_on_side(function: str, side: Side) -> bool:
    """Whether the real function ``module.function`` may appear in data of ``side``."""
    return side == "all" or is_heldout_function(function) == (side == "heldout")
