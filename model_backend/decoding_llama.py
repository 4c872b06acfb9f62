"""The Llama model laid out for decoding: the same arithmetic in fewer, larger operations.

Why: at the embedded engine's size a forward pass for a few tokens is a few hundred small tensor
operations, and on a CPU each pays a fixed cost (Python, the dispatcher, a thread fork and join)
that exceeds its arithmetic. This layout computes what :class:`.llama.LlamaForCausalLM` computes
with about half the operations per layer: the query, key and value projections as one matrix,
the gate and up projections as one, RMSNorm as torch's fused kernel, the rotary embedding applied
to queries and keys in one go, and no causal mask built for a single token. It writes the same
:class:`.llama.KVCache`, so a session rolls back to any prefix exactly as before
(:meth:`.llama.KVCache.truncate`), and training keeps the readable model of :mod:`.llama`.

Its projections are ``nn.Linear`` modules, so :mod:`.quantize` turns them into int8 ones.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .llama import KVCache, LlamaForCausalLM, ModelConfig, rope_tables


def _linear(weight: torch.Tensor) -> nn.Linear:
    out_features, in_features = weight.shape
    layer = nn.Linear(in_features, out_features, bias=False, device=weight.device)
    layer.weight = nn.Parameter(weight.detach().clone(), requires_grad=False)
    return layer


class DecodingLayer(nn.Module):
    def __init__(self, config: ModelConfig, source: nn.Module) -> None:
        super().__init__()
        attn, mlp = source.self_attn, source.mlp
        self.qkv_proj = _linear(
            torch.cat([attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight])
        )
        self.o_proj = _linear(attn.o_proj.weight)
        self.gate_up_proj = _linear(torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]))
        self.down_proj = _linear(mlp.down_proj.weight)
        self.input_norm = nn.Parameter(source.input_layernorm.weight.detach().clone())
        self.post_norm = nn.Parameter(source.post_attention_layernorm.weight.detach().clone())
        self.heads = config.num_attention_heads
        self.kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.eps = config.rms_norm_eps

    def forward(
        self,
        x: torch.Tensor,
        cos: torch.Tensor,
        sin: torch.Tensor,
        cache: KVCache | None,
        layer: int,
        mask: torch.Tensor | None,
    ) -> torch.Tensor:
        length = x.shape[1]
        heads, kv_heads, dim = self.heads, self.kv_heads, self.head_dim
        h = F.rms_norm(x, (x.shape[-1],), self.input_norm, self.eps)
        qkv = self.qkv_proj(h).view(1, length, heads + 2 * kv_heads, dim).transpose(1, 2)
        qk, v = qkv[:, : heads + kv_heads], qkv[:, heads + kv_heads :]
        half = dim // 2
        qk = qk * cos + torch.cat((-qk[..., half:], qk[..., :half]), dim=-1) * sin
        q, k = qk[:, :heads], qk[:, heads:]
        if cache is not None:
            start = cache.length
            end = start + length
            cache.keys[layer][:, :, start:end] = k
            cache.values[layer][:, :, start:end] = v
            k = cache.keys[layer][:, :, :end]
            v = cache.values[layer][:, :, :end]
        if heads != kv_heads:
            k = k.repeat_interleave(heads // kv_heads, dim=1)
            v = v.repeat_interleave(heads // kv_heads, dim=1)
        if mask is None:  # one token after the cache, or a whole sequence from the start
            causal = length > 1 and (cache is None or cache.length == 0)
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.o_proj(out.transpose(1, 2).reshape(1, length, heads * dim))
        h = F.rms_norm(x, (x.shape[-1],), self.post_norm, self.eps)
        gate, up = self.gate_up_proj(h).chunk(2, dim=-1)
        return x + self.down_proj(F.silu(gate) * up)


class DecodingLlama(nn.Module):
    """A :class:`.llama.LlamaForCausalLM`'s weights, fused for decoding one sequence.

    Same interface as the model it was made from where decoders use it: ``forward(input_ids,
    cache, last_only, keep)``, :meth:`new_cache`, ``config``.
    """

    def __init__(self, source: LlamaForCausalLM) -> None:
        super().__init__()
        config = source.config
        self.config = config
        self.embed_tokens = nn.Embedding.from_pretrained(
            source.model.embed_tokens.weight.detach().clone(), freeze=True
        )
        self.layers = nn.ModuleList(DecodingLayer(config, layer) for layer in source.model.layers)
        self.norm = nn.Parameter(source.model.norm.weight.detach().clone())
        if config.tie_word_embeddings:
            self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
            self.lm_head.weight = self.embed_tokens.weight
        else:
            self.lm_head = _linear(source.lm_head.weight)
        weight = self.embed_tokens.weight
        self._rope = rope_tables(config, config.max_position_embeddings, weight.device)
        self._rope = tuple(t.to(weight.dtype) for t in self._rope)
        self.requires_grad_(False)

    def forward(
        self,
        input_ids: torch.Tensor,
        cache: KVCache | None = None,
        last_only: bool = False,
        keep: int | None = None,
    ) -> torch.Tensor:
        """Logits of the last ``keep`` positions (all when None; one with ``last_only``)."""
        if last_only:
            keep = 1
        length = input_ids.shape[1]
        start = cache.length if cache is not None else 0
        limit = cache.capacity if cache is not None else self.config.max_position_embeddings
        if input_ids.shape[0] != 1:
            raise ValueError("the decoding layout runs one sequence at a time")
        if start + length > limit:
            raise ValueError(f"the cache holds {limit} positions; {start + length} needed")
        cos = self._rope[0][start : start + length]
        sin = self._rope[1][start : start + length]
        mask = None
        if start > 0 and length > 1:  # new tokens after a cached prefix: see it and their past
            mask = torch.ones(length, start + length, dtype=torch.bool, device=input_ids.device)
            mask = mask.tril(diagonal=start)
        x = self.embed_tokens(input_ids)
        for i, layer in enumerate(self.layers):
            x = layer(x, cos, sin, cache, i, mask)
        if cache is not None:
            cache.length += length
        if keep is not None:
            x = x[:, -keep:]
        return self.lm_head(F.rms_norm(x, (x.shape[-1],), self.norm, self.config.rms_norm_eps))

    def new_cache(self, capacity: int | None = None) -> KVCache:
        weight = self.embed_tokens.weight
        return KVCache(
            self.config,
            capacity or self.config.max_position_embeddings,
            weight.device,
            weight.dtype,
        )
