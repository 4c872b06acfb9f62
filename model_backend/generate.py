"""Greedy decoding of one state with the KV cache.

A first cut of the embedded engine's decoder. One constraint is offered: while the model writes a
source line (after ``<|src_sep|>``), only tokens that keep the text a prefix of a real line of the
program are accepted, the best-ranked such token is taken, and the line may only end (``\\n``) on a
complete line. Without ``source_lines`` the decoding is unconstrained, which is what the
next-state evaluation measures.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch

from neural_debugger.protocol.tokens import ACTION_SEP, SRC_SEP, TRACE_END
from neural_debugger.training.model import LlamaForCausalLM


@functools.lru_cache(maxsize=4)
def _token_texts(tokenizer) -> tuple[str, ...]:
    return tuple(
        tokenizer.decode([i], skip_special_tokens=False) for i in range(tokenizer.get_vocab_size())
    )


def _fits_source(text: str, written: str, lines: Sequence[str], line_set: frozenset[str]) -> bool:
    """Whether appending ``text`` keeps ``written`` on the way to one of ``lines``."""
    if "<|" in text:
        return False
    if "\n" in text:
        head, _, tail = text.partition("\n")
        return tail == "" and written + head in line_set
    candidate = written + text
    return any(line.startswith(candidate) for line in lines)


@torch.no_grad()
def greedy_state(
    model: LlamaForCausalLM,
    tokenizer,
    prompt: str,
    max_new_tokens: int = 256,
    source_lines: Sequence[str] | None = None,
) -> str:
    """The model's greedy continuation of ``prompt`` up to the end of one state."""
    ids = tokenizer.encode(prompt, add_special_tokens=False).ids
    capacity = min(len(ids) + max_new_tokens, model.config.max_position_embeddings)
    if len(ids) >= capacity:
        return ""
    stop = {tokenizer.token_to_id(ACTION_SEP), tokenizer.token_to_id(TRACE_END)}
    src_id = tokenizer.token_to_id(SRC_SEP)
    texts = _token_texts(tokenizer) if source_lines is not None else ()
    lines = list(dict.fromkeys(source_lines or ()))
    line_set = frozenset(lines)
    cache = model.new_cache(capacity)
    logits = model(torch.tensor([ids]), cache)[0, -1]
    out: list[int] = []
    # the source line being written, when inside one (the prompt itself may end inside one)
    written: str | None = "" if source_lines is not None and ids[-1] == src_id else None
    while cache.length < capacity:
        token = int(logits.argmax())
        if written is not None:
            ranked = torch.argsort(logits, descending=True).tolist()
            fitting = (t for t in ranked if _fits_source(texts[t], written, lines, line_set))
            token = next(fitting, token)  # some token always fits while on the way to a line
        if token in stop:
            break
        out.append(token)
        if source_lines is not None:
            if token == src_id:
                written = ""
            elif written is not None:
                written = None if "\n" in texts[token] else written + texts[token]
        if cache.length == capacity:
            break
        logits = model(torch.tensor([[token]]), cache)[0, -1]
    return tokenizer.decode(out, skip_special_tokens=False)
