"""The data step's pool workers run under an address-space limit, so a runaway program raises
MemoryError inside its worker instead of being killed by the kernel (which would leave the pool
waiting forever for that worker's result)."""

from __future__ import annotations

import multiprocessing as mp
import resource
from collections.abc import Iterator
from multiprocessing.pool import Pool

import pytest

from neural_debugger.training import data


def _allocate(size: int) -> int:
    return len(bytearray(size))


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY and hard <= data.WORKER_MEMORY_BYTES:
        pytest.skip("this machine's hard address-space limit is already below the workers'")
    with mp.get_context("spawn").Pool(1, data._limit_worker_memory) as workers:
        yield workers


def test_a_worker_runs_under_the_soft_limit_and_keeps_the_hard_one(pool: Pool) -> None:
    soft, hard = pool.apply(resource.getrlimit, (resource.RLIMIT_AS,))
    assert soft == data.WORKER_MEMORY_BYTES
    assert hard == resource.getrlimit(resource.RLIMIT_AS)[1]


def test_a_runaway_allocation_is_a_memory_error_and_the_worker_serves_on(pool: Pool) -> None:
    with pytest.raises(MemoryError):
        pool.apply(_allocate, (data.WORKER_MEMORY_BYTES + 2**30,))
    assert pool.apply(_allocate, (1024,)) == 1024
