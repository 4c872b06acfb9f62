"""Choosing a backend by name, as the terminal and the DAP server's launch configuration do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .backend import Engine

BACKENDS = ("local", "vllm", "oracle")


def make_engine(
    name: str,
    model: Path | None = None,
    vllm_urls: Sequence[str] = (),
) -> Engine:
    """``local``: the embedded model (default); ``vllm``: vLLM servers; ``oracle``: a real run.

    The oracle executes the user's program, so it is only made when asked for by name.
    """
    if name == "local":
        from .local import LocalEngine

        return LocalEngine(model)
    if name == "vllm":
        from .vllm_engine import VllmEngine

        if not vllm_urls:
            raise ValueError("the vllm backend needs at least one server URL (--vllm-url)")
        return VllmEngine(list(vllm_urls), model)
    if name == "oracle":
        from .oracle import OracleEngine

        return OracleEngine()
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
