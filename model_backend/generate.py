"""Unconstrained greedy decoding of one state, for measuring the raw model.

The next-state evaluation and the training tests score what the model writes on its own, before
any constraint helps it; debug sessions decode under the grammar instead (:mod:`.local`).
"""

from __future__ import annotations

import torch
from tokenizers import Tokenizer

from neural_debugger.protocol.tokens import ACTION_SEP, TRACE_END

from .llama import LlamaForCausalLM


@torch.no_grad()
def greedy_state(
    model: LlamaForCausalLM,
    tokenizer: Tokenizer,
    prompt: str,
    max_new_tokens: int = 256,
) -> str:
    """The model's greedy continuation of ``prompt`` up to the end of one state."""
    ids = tokenizer.encode(prompt, add_special_tokens=False).ids
    capacity = min(len(ids) + max_new_tokens, model.config.max_position_embeddings)
    if len(ids) >= capacity:
        return ""
    stop = {tokenizer.token_to_id(ACTION_SEP), tokenizer.token_to_id(TRACE_END)}
    cache = model.new_cache(capacity)
    logits = model(torch.tensor([ids]), cache, last_only=True)[0, -1]
    out: list[int] = []
    while cache.length < capacity:
        token = int(logits.argmax())
        if token in stop:
            break
        out.append(token)
        if cache.length == capacity:
            break
        logits = model(torch.tensor([[token]]), cache, last_only=True)[0, -1]
    text: str = tokenizer.decode(out, skip_special_tokens=False)
    return text
