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

from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from .llama import (
    CausalLM,
    KVCache,
    LlamaForCausalLM,
    ModelConfig,
    Pass,
    apply_rope,
    attend,
    rope_tables,
)

if TYPE_CHECKING:
    from .native_step import NativeStep


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

    def forward(self, x: torch.Tensor, step: Pass, layer: int) -> torch.Tensor:
        length = x.shape[1]
        heads, kv_heads, dim = self.heads, self.kv_heads, self.head_dim
        h = F.rms_norm(x, (x.shape[-1],), self.input_norm, self.eps)
        qkv = self.qkv_proj(h).view(1, length, heads + 2 * kv_heads, dim).transpose(1, 2)
        qk, v = qkv.split((heads + kv_heads, kv_heads), 1)
        q, k = apply_rope(qk, step.cos, step.sin).split((heads, kv_heads), 1)  # both in one go
        out = attend(q, k, v, step, layer)
        x = x + self.o_proj(out.transpose(1, 2).reshape(1, length, heads * dim))
        h = F.rms_norm(x, (x.shape[-1],), self.post_norm, self.eps)
        gate, up = self.gate_up_proj(h).chunk(2, dim=-1)
        return x + self.down_proj(F.silu(gate) * up)


class DecodingLlama(CausalLM):
    """A :class:`.llama.LlamaForCausalLM`'s weights, fused for decoding one sequence.

    The same forward pass and cache as the model it was made from (:class:`.llama.CausalLM`).
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
        self.native: NativeStep | None = None  # the pass in C, for a few tokens (native_step)

    def forward(
        self,
        input_ids: torch.Tensor,
        cache: KVCache | None = None,
        last_only: bool = False,
        keep: int | None = None,
    ) -> torch.Tensor:
        """:meth:`.llama.CausalLM.forward`, by the native step where one is attached and the
        pass is short enough for it (a few tokens appended to a cache)."""
        native = self.native
        if native is not None and cache is not None and input_ids.shape[1] <= native.max_tokens:
            rows = 1 if last_only else keep if keep is not None else input_ids.shape[1]
            return native(input_ids, cache, rows)
        return super().forward(input_ids, cache, last_only, keep)

    def _begin(self, input_ids: torch.Tensor, cache: KVCache | None) -> Pass:
        if input_ids.shape[0] != 1:
            raise ValueError("the decoding layout runs one sequence at a time")
        limit = self.config.max_position_embeddings
        return Pass.begin(self._rope, input_ids.shape[1], cache, limit, self._rope[0].dtype)

    def _parts(self) -> tuple[nn.Embedding, nn.ModuleList, Callable[[torch.Tensor], torch.Tensor]]:
        return self.embed_tokens, self.layers, self._head

    def _head(self, x: torch.Tensor) -> torch.Tensor:
        return self.lm_head(F.rms_norm(x, (x.shape[-1],), self.norm, self.config.rms_norm_eps))
