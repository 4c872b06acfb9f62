"""The one percentile every benchmark here reports (nearest rank), so their p95s agree."""

from __future__ import annotations


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
