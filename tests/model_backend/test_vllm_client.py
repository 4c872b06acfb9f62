"""The vLLM engine's client when servers misbehave: down, slow, garbage, another tokenizer.

These servers are small real HTTP servers on loopback sockets; the engine against a real vLLM
server is tested by ``make test-vllm`` (tests/vllm).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import torch

from neural_debugger.model_backend.backend import BackendUnavailable, ModelFolderError
from neural_debugger.model_backend.choosing import shortlist
from neural_debugger.model_backend.grammar import (
    FORWARD_KINDS,
    INVERSE_KINDS,
    SourceLines,
    StateWriter,
)
from neural_debugger.model_backend.grammar_request import GrammarRequest
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.model_backend.vllm_engine import VllmEngine
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.protocol.tokens import END_OF_TEXT
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = load_program(ROOT / "examples" / "bubble_sort.py", "bubble_sort([3, 1, 2])")
STEP_INTO = Action(kind=ActionKind.STEP_INTO)
Reply = Callable[[str, dict], tuple[int, bytes]]


@contextmanager
def serving(reply: Reply) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            status, data = reply(self.path, body)
            try:
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                pass

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def vllm_like(completion: Callable[[dict], tuple[int, bytes]], engine: VllmEngine) -> Reply:
    """A server that lists a model and tokenizes like the engine, then answers ``completion``."""

    def reply(path: str, body: dict) -> tuple[int, bytes]:
        if path == "/v1/models":
            return 200, json.dumps({"data": [{"id": "ndb-small"}]}).encode()
        if path == "/tokenize":
            return 200, json.dumps({"tokens": engine.vocab.encode(body["prompt"])}).encode()
        return completion(body)

    return reply


async def _step(url: str, timeout: float = 10.0) -> None:
    session = await DebugSession.open(PROGRAM, VllmEngine([url], timeout=timeout))
    await session.step(STEP_INTO)


async def test_a_server_that_is_down_gives_a_clear_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(BackendUnavailable, match="cannot reach the vLLM server"):
        await _step(f"http://127.0.0.1:{port}")


async def test_garbage_and_errors_from_the_server_are_named() -> None:
    engine = VllmEngine(["http://unused"])
    cases = [
        (lambda body: (200, b"<html>oops</html>"), "not JSON"),
        (lambda body: (200, b'{"choices": [{"text": "x"}]}'), "without token ids"),
        (lambda body: (500, b'{"error": "boom"}'), "answered 500"),
        (lambda body: (200, json.dumps(_completion(99999)).encode()), "unknown token"),
        # a server without the grammar processor: its model writes what it likes
        (lambda body: (200, json.dumps(_completion(ord("}"))).encode()), "outside the debugger"),
    ]
    for completion, message in cases:
        server = serving(vllm_like(completion, engine))
        with server as url, pytest.raises(BackendUnavailable, match=message):
            await _step(url)


def _completion(*tokens: int) -> dict:
    return {
        "choices": [
            {
                "index": 0,
                "token_ids": list(tokens),
                "logprobs": {"token_logprobs": [-0.1] * len(tokens)},
                "finish_reason": "stop",
            }
        ]
    }


def grammar_model(engine: VllmEngine) -> Callable[[dict], tuple[int, bytes]]:
    """A stand-in server with the grammar processor: it decodes the requested state under the
    real grammar and rule, with made-up logits that rank lower ids first and like ``}`` best."""
    vocab = engine.vocab
    logits = -torch.arange(vocab.size, dtype=torch.float32)
    logits[vocab.id_of_bytes[b"}"]] = 1.0

    def completion(body: dict) -> tuple[int, bytes]:
        request = GrammarRequest.from_extra_args(body["vllm_xargs"])
        assert request is not None
        kinds = INVERSE_KINDS if request.inverse else FORWARD_KINDS
        source = SourceLines(request.code.split("\n"), vocab)
        writer = StateWriter(vocab, source, kinds, request.expected)
        out = []
        while not writer.done:
            candidates = shortlist(logits, writer, request.wanted)  # then greedy, as vLLM
            token = int(candidates[int(logits[candidates].argmax())])
            writer.advance(token)
            out.append(token)
        out.append(vocab.special_id[END_OF_TEXT])
        return 200, json.dumps(_completion(*out)).encode()

    return completion


async def test_a_slow_server_times_out_and_a_second_server_takes_over() -> None:
    engine = VllmEngine(["http://unused"])

    def slow(body: dict) -> tuple[int, bytes]:
        time.sleep(3)
        return 200, b"{}"

    with serving(vllm_like(slow, engine)) as url:
        started = time.monotonic()
        with pytest.raises(BackendUnavailable, match="did not answer in time"):
            await _step(url, timeout=0.5)
        assert time.monotonic() - started < 3
        with serving(vllm_like(grammar_model(engine), engine)) as good:
            session = await DebugSession.open(PROGRAM, VllmEngine([url, good], timeout=0.5))
            stop = await session.step(STEP_INTO)  # the slow one fails, the next one answers
            assert stop.state.kind.token == "<|call_sep|>" and stop.locals == {}


async def test_a_server_with_another_tokenizer_is_refused() -> None:
    def reply(path: str, body: dict) -> tuple[int, bytes]:
        if path == "/v1/models":
            return 200, b'{"data": [{"id": "other"}]}'
        return 200, b'{"tokens": [1, 2, 3]}'

    with serving(reply) as url, pytest.raises(ModelFolderError, match="tokenizer differs"):
        await _step(url)
