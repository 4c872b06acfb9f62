"""The program generator's output, pinned by digest.

Why: the statement and expression grammars (``statements``, ``exprs``) are large and are
reorganised from time to time; a refactoring must not change a single generated program, since
data runs are reproduced from their seeds. Each test draws a fixed set of programs and compares a
SHA-256 over their source texts and entry calls with a constant recorded from the generator as
it was when the test was written. A test that fails here means the generated programs changed:
if the change is meant (a new statement form, a new weight), record the new digest printed in
the failure and say so in the commit.
"""

from __future__ import annotations

import hashlib
import random

from neural_debugger.training.programs import (
    TrainingProgram,
    generate_programs,
    package_programs,
)
from neural_debugger.training.programs.generator import generate_candidate

# Candidates straight from the generator, before validation: every kind (function, script),
# with and without a planned uncaught exception. 4 x 3 x 50 candidates call every production
# of the statement and expression grammars at least a few dozen times.
CANDIDATE_SEEDS = (0, 1, 2)
CANDIDATES_PER_STREAM = 50
CANDIDATES_DIGEST = "096c907345e87f7a902f13e48ece18932af33d5249e67f24c1c5f9daab5738e0"

# The whole pipeline (generated functions and scripts, standard-library code, each validated
# under the tracer) for a few data-chunk seeds.
PIPELINE_SEEDS = (0, 1_000_003)
PIPELINE_COUNT = 25
PIPELINE_DIGEST = "5cf899600043228eac274b5bab33199514299bba5fdc940f8ed9bcf5eaf4282e"

# Functions of installed pure-Python packages with generated inputs.
PACKAGE_SEED = 500_000
PACKAGE_COUNT = 15
PACKAGE_DIGEST = "d34c723f0693460a69b94d0d2bd71d702ba3cb416a7f335944f5fbb602cff5fc"


def _digest(parts: list[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _program_parts(programs: list[TrainingProgram]) -> list[str]:
    return [f"{p.origin}\n{p.entry!r}\n{p.source}" for p in programs]


def candidates_digest() -> tuple[str, int]:
    """The digest of every candidate stream, and how many candidates went into it."""
    parts = []
    for seed in CANDIDATE_SEEDS:
        for kind in ("function", "script"):
            for expect_error in (False, True):
                rng = random.Random(f"{seed}:{kind}:{expect_error}")
                for _ in range(CANDIDATES_PER_STREAM):
                    try:
                        c = generate_candidate(rng, kind, expect_error)
                    except Exception as exc:  # a generator bug is part of the output too
                        parts.append(f"{kind} {expect_error} failed: {type(exc).__name__}")
                        continue
                    parts.append(f"{c.kind} {c.expect_error}\n{c.entry!r}\n{c.source}")
    return _digest(parts), len(parts)


def test_generated_candidates_are_unchanged() -> None:
    digest, count = candidates_digest()
    assert count == len(CANDIDATE_SEEDS) * 4 * CANDIDATES_PER_STREAM
    assert digest == CANDIDATES_DIGEST, f"generated candidates changed: {digest}"


def test_generated_training_programs_are_unchanged() -> None:
    parts: list[str] = []
    for seed in PIPELINE_SEEDS:
        parts += _program_parts(generate_programs(seed, PIPELINE_COUNT))
    origins = {part.split("\n", 1)[0] for part in parts}
    assert {"generated:function", "generated:script"} <= origins
    assert any(not o.startswith("generated:") for o in origins), origins
    digest = _digest(parts)
    assert digest == PIPELINE_DIGEST, f"training programs changed: {digest}"


def test_package_programs_are_unchanged() -> None:
    programs, _ = package_programs(PACKAGE_SEED, PACKAGE_COUNT)
    assert len(programs) == PACKAGE_COUNT
    digest = _digest(_program_parts(programs))
    assert digest == PACKAGE_DIGEST, f"package programs changed: {digest}"
