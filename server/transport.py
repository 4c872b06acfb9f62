"""Content-Length framing of DAP messages over anyio byte streams.

A client that sends a broken frame must not end its session: the reader reports what was wrong
as a :class:`Received` with an ``error`` (and the request's ``seq`` when it can still be read from
the broken text, so the adapter can answer that request), then resynchronises on the next
``Content-Length`` header and goes on. Only the end of the stream ends reading.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

HEADER_END = b"\r\n\r\n"
LENGTH_NAME = b"content-length"
MAX_HEADER_BYTES = 8192
MAX_BODY_BYTES = 64 * 1024 * 1024
_SEQ = re.compile(rb'"seq"\s*:\s*(\d+)')
_COMMAND = re.compile(rb'"command"\s*:\s*"([A-Za-z_]\w{0,63})"')


@dataclass(frozen=True)
class Received:
    """One frame as read: a JSON object, or why there is none.

    ``seq`` and ``command`` are filled from the broken text when they can be found there, so that
    an error can be answered as a response to the request the client is waiting on.
    """

    message: dict[str, Any] | None = None
    error: str | None = None
    seq: int | None = None
    command: str | None = None


def frame(message: dict[str, Any]) -> bytes:
    """A message as bytes on the wire: the header, a blank line, the UTF-8 JSON body."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _content_length(header: bytes) -> int | str:
    """The body length a header block announces, or (a text) why it announces none."""
    for line in header.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if not colon or name.strip().lower() != LENGTH_NAME:
            continue
        text = value.strip()
        if not text.isdigit():
            shown = text.decode("ascii", "replace")
            return f"invalid Content-Length header {shown!r}: it must be a byte count"
        length = int(text)
        if length > MAX_BODY_BYTES:
            return f"Content-Length {length} is over the limit of {MAX_BODY_BYTES} bytes"
        return length
    shown = header[:80].decode("utf-8", "replace")
    return f"missing Content-Length header in {shown!r}"


def _salvage(body: bytes, error: str) -> Received:
    """An error for a body that is not a message, with its seq and command if still legible."""
    seq = _SEQ.search(body)
    command = _COMMAND.search(body)
    return Received(
        error=error,
        seq=int(seq.group(1)) if seq else None,
        command=command.group(1).decode("ascii") if command else None,
    )


def decode_body(body: bytes) -> Received:
    """Parse one body; anything but a JSON object becomes an error."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        return _salvage(body, f"the message body is not UTF-8: {err.reason}")
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        detail = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
        return _salvage(body, f"the message body is not valid JSON: {detail}")
    if not isinstance(message, dict):
        return Received(error=f"a message must be a JSON object, not {type(message).__name__}")
    return Received(message=message)


class MessageReader:
    """Reads framed messages from a byte stream, one :class:`Received` per frame."""

    def __init__(self, stream: ByteReceiveStream) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self._ended = False

    async def _more(self) -> bool:
        """Read one more chunk into the buffer; False at the end of the stream."""
        if self._ended:
            return False
        try:
            chunk = await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended = True
            return False
        self._buffer += chunk
        return True

    def _resynchronise(self, start: int) -> None:
        """Drop bytes before the next Content-Length header found from ``start``.

        Without one, only a tail that may be the beginning of such a header is kept.
        """
        lowered = bytes(self._buffer).lower()
        found = lowered.find(LENGTH_NAME, start)
        if found >= 0:
            del self._buffer[:found]
            return
        keep = next(
            (n for n in range(len(LENGTH_NAME) - 1, 0, -1) if lowered.endswith(LENGTH_NAME[:n])),
            0,
        )
        del self._buffer[: len(self._buffer) - keep]

    async def receive(self) -> Received:
        """The next frame. Raises :class:`anyio.EndOfStream` once the stream has ended."""
        while True:
            end = self._buffer.find(HEADER_END)
            if end >= 0:
                break
            if len(self._buffer) > MAX_HEADER_BYTES:
                self._resynchronise(1)
                return Received(error=f"no end of header within {MAX_HEADER_BYTES} bytes")
            if not await self._more():
                leftover = bytes(self._buffer).strip()
                self._buffer.clear()
                if leftover:
                    return Received(error="the stream ended inside a message header")
                raise anyio.EndOfStream
        header = bytes(self._buffer[:end])
        length = _content_length(header)
        if isinstance(length, str):
            problem = length
            inner = header.lower().find(LENGTH_NAME, 1)
            if inner > 0 and problem.startswith("missing"):
                # stray bytes ran into the next header: skip just them
                del self._buffer[:inner]
                shown = header[:inner][:80].decode("utf-8", "replace")
                return Received(error=f"unexpected bytes before a header: {shown!r}")
            del self._buffer[: end + len(HEADER_END)]
            self._resynchronise(0)
            return Received(error=problem)
        start = end + len(HEADER_END)
        while len(self._buffer) < start + length:
            if not await self._more():
                got = len(self._buffer) - start
                body = bytes(self._buffer[start:])
                self._buffer.clear()
                return _salvage(body, f"the stream ended after {got} of {length} body bytes")
        body = bytes(self._buffer[start : start + length])
        del self._buffer[: start + length]
        received = decode_body(body)
        if received.error is not None:
            # A body shorter than announced swallows the next frame's header: give it back.
            inner = body.lower().find(LENGTH_NAME, 1)
            if inner > 0:
                self._buffer[0:0] = body[inner:]
                received = _salvage(body[:inner], received.error)
        return received


class MessageWriter:
    """Writes messages with the adapter's own increasing ``seq``, one frame at a time.

    Sends from concurrent tasks are serialised so frames never interleave and ``seq`` follows the
    order on the wire. Once the client is gone, sending does nothing: the reader notices the end.
    """

    def __init__(self, stream: ByteSendStream) -> None:
        self._stream = stream
        self._lock = anyio.Lock()
        self._seq = 0
        self.closed = False

    async def send(self, message: dict[str, Any]) -> None:
        async with self._lock:
            if self.closed:
                return
            self._seq += 1
            data = frame({"seq": self._seq, **message})
            try:
                await self._stream.send(data)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                self.closed = True
