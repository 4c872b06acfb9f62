"""What a vLLM request carries for the debugger grammar, and its reading inside the server.

The client (:mod:`.vllm_engine`) computes what the code and the action fix about the next state
(:class:`.flow.Expected`) as the embedded engine does, and sends it with the code, the kinds the
action can lead to and how many accepted tokens a choice looks at, as one JSON string under
:data:`XARG` in the request's ``vllm_xargs`` (vLLM hands it to the logits processor as
``SamplingParams.extra_args``). The processor (:mod:`.vllm_grammar`) rebuilds the same
:class:`.grammar.StateWriter` from it; the per-code parts (the program's lines, names and
flow) it keeps between requests, keyed by the code.

This module imports neither vLLM nor torch, so both sides share it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neural_debugger.protocol import StateKind

from .flow import Expected

XARG = "ndb_grammar"  # the key in vllm_xargs / SamplingParams.extra_args
VERSION = 1


class GrammarRequestError(ValueError):
    """A request's grammar arguments cannot be read (the server answers 400 with this text)."""


@dataclass(frozen=True)
class GrammarRequest:
    """Everything the processor needs to decode one state under the grammar."""

    code: str
    inverse: bool  # the kinds the action can lead to: inverse or forward ones
    expected: Expected
    wanted: int  # accepted tokens a choice looks at: 1 (greedy) or top k

    def to_json(self) -> str:
        e = self.expected
        return json.dumps(
            {
                "v": VERSION,
                "code": self.code,
                "inverse": self.inverse,
                "wanted": self.wanted,
                "lines": {k.value: sorted(v) for k, v in e.lines.items()},
                "diff": e.diff,
                "names": _sorted(e.names),
                "call_names": {k: sorted(v) for k, v in e.call_names.items()},
                "unchanged": {k: sorted(v) for k, v in e.unchanged.items()},
                "before": None if e.before is None else dict(e.before),
                "fixed": dict(e.fixed),
                "required": sorted(e.required),
                "call_required": {k: sorted(v) for k, v in e.call_required.items()},
                "call_fixed": {k: dict(v) for k, v in e.call_fixed.items()},
                "returned": e.returned,
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @staticmethod
    def from_extra_args(extra: Mapping[str, Any] | None) -> GrammarRequest | None:
        """The grammar a request asks for (None: it asks for none and is left alone)."""
        if not extra or XARG not in extra:
            return None
        raw = extra[XARG]
        try:
            data = json.loads(raw) if isinstance(raw, str) else raw
            if not isinstance(data, dict) or data.get("v") != VERSION:
                raise GrammarRequestError(f"{XARG}: not version {VERSION} of the grammar request")
            wanted = int(data["wanted"])
            if wanted < 1:
                raise GrammarRequestError(f"{XARG}: wanted must be 1 or more")
            before = data["before"]
            expected = Expected(
                lines={StateKind(k): frozenset(map(str, v)) for k, v in data["lines"].items()},
                diff=None if data["diff"] is None else bool(data["diff"]),
                names=None if data["names"] is None else frozenset(map(str, data["names"])),
                call_names={str(k): frozenset(map(str, v)) for k, v in data["call_names"].items()},
                unchanged={str(k): frozenset(map(str, v)) for k, v in data["unchanged"].items()},
                before=None if before is None else {str(k): v for k, v in before.items()},
                fixed={str(k): str(v) for k, v in data.get("fixed", {}).items()},
                required=frozenset(map(str, data.get("required", ()))),
                call_required={
                    str(k): frozenset(map(str, v)) for k, v in data.get("call_required", {}).items()
                },
                call_fixed={
                    str(k): {str(n): str(t) for n, t in v.items()}
                    for k, v in data.get("call_fixed", {}).items()
                },
                returned=None if data.get("returned") is None else str(data["returned"]),
            )
            return GrammarRequest(str(data["code"]), bool(data["inverse"]), expected, wanted)
        except GrammarRequestError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise GrammarRequestError(f"{XARG}: cannot read the grammar request: {err!r}") from None


def _sorted(names: frozenset[str] | None) -> list[str] | None:
    return None if names is None else sorted(names)
