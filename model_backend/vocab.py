"""The tokenizer's vocabulary as bytes, for decoding under constraints.

Byte-level BPE tokens stand for exact byte strings (a token may hold part of a multi-byte
character), so the constraints work on bytes: a source line is matched as UTF-8 bytes, JSON is
checked byte by byte. Special tokens (the language's separators) have no bytes here; they are only
ever chosen where the grammar names them.
"""

from __future__ import annotations

import functools

from tokenizers import Tokenizer

from neural_debugger.protocol.tokens import ALL_SPECIAL_TOKENS


@functools.lru_cache(maxsize=1)
def _byte_of_char() -> dict[str, int]:
    """The byte-level alphabet: the printable character that stands for each of the 256 bytes."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


class Vocab:
    """Token ids to bytes (ordinary tokens) or names (special tokens), and back."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        size = tokenizer.get_vocab_size()
        specials = {token: tokenizer.token_to_id(token) for token in ALL_SPECIAL_TOKENS}
        if None in specials.values():
            missing = [t for t, i in specials.items() if i is None]
            raise ValueError(f"the tokenizer lacks the language tokens {missing}")
        self.special_id: dict[str, int] = specials  # type: ignore[assignment]
        self.special_text: dict[int, str] = {i: t for t, i in self.special_id.items()}
        added = {i for i in tokenizer.get_added_tokens_decoder()}
        table = _byte_of_char()
        self.bytes_of: list[bytes | None] = []
        for i in range(size):
            piece = tokenizer.id_to_token(i)
            if i in added or piece is None:
                self.bytes_of.append(None)
            else:
                self.bytes_of.append(bytes(table[c] for c in piece))
        self.id_of_bytes = {b: i for i, b in enumerate(self.bytes_of) if b}
        self.longest = max(len(b) for b in self.id_of_bytes)
        self.newline = self.id_of_bytes[b"\n"]
        self.size = size

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def raw(self, ids: list[int]) -> bytes:
        """The bytes of ``ids``, special tokens spelled out."""
        out = bytearray()
        for i in ids:
            piece = self.bytes_of[i]
            out += piece if piece is not None else self.special_text.get(i, "").encode()
        return bytes(out)

    def text(self, ids: list[int]) -> str:
        """The text of ``ids`` (bytes that are not UTF-8 replaced)."""
        return self.raw(ids).decode("utf-8", errors="replace")
