"""A Llama-architecture decoder, small enough to read in one sitting, saved in HF format.

Parameter names, RoPE layout (``rotate_half``), RMSNorm and SwiGLU follow Hugging Face's
``LlamaForCausalLM``, and :func:`save_pretrained` writes ``config.json`` plus safetensors shards,
so ``transformers`` and vLLM load the weights unchanged. The same module serves training (full
sequences) and the embedded engine (a KV cache that a debug session keeps between steps and can
roll back to any prefix).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import nn

from .tokenizer import tokenizer_fingerprint

MAX_SHARD_BYTES = 16 * 1024 * 1024


@dataclass
class ModelConfig:
    """Hyper-parameters, named as in HF's ``LlamaConfig``."""

    vocab_size: int
    hidden_size: int = 256
    intermediate_size: int = 704
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 4
    max_position_embeddings: int = 2048
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10_000.0
    tie_word_embeddings: bool = True
    bos_token_id: int = 0
    eos_token_id: int = 1
    pad_token_id: int | None = None

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    def to_hf(self, dtype: str) -> dict[str, Any]:
        return {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            **asdict(self),
            "hidden_act": "silu",
            "attention_bias": False,
            "mlp_bias": False,
            "torch_dtype": dtype,
        }

    @classmethod
    def from_hf(cls, data: dict[str, Any]) -> ModelConfig:
        if data.get("model_type") != "llama":
            raise ValueError(f"not a Llama config: model_type={data.get('model_type')!r}")
        fields = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in fields})


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rope_tables(config: ModelConfig, length: int, device: torch.device) -> tuple[torch.Tensor, ...]:
    """The rotary embedding's cosines and signed sines of positions ``0..length-1``: the sines
    of the first half of each head negated, as :func:`apply_rope` takes them."""
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, device=device).float() / dim))
    freqs = torch.outer(torch.arange(length, device=device).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    sin = emb.sin()
    sin[:, : dim // 2].neg_()
    return emb.cos(), sin


def apply_rope(x: torch.Tensor, cos: torch.Tensor, signed_sin: torch.Tensor) -> torch.Tensor:
    """The rotary embedding of ``x`` (heads on dimension 1, positions on 2), HF's layout: each
    head's halves rotated as pairs, ``x * cos + rotate_half(x) * sin`` with ``rotate_half(x)``
    the halves swapped and the new first half negated. The swap is one roll, the negation is in
    ``signed_sin`` (:func:`rope_tables`): the same products, in fewer operations."""
    return x * cos + x.roll(x.shape[-1] // 2, -1) * signed_sin


class KVCache:
    """Keys and values of every layer for one sequence, preallocated to ``capacity`` positions.

    ``length`` is how many positions are filled; :meth:`truncate` rolls back to a prefix (a debug
    session drops a rejected continuation, or steps back, without recomputing anything).
    """

    def __init__(
        self, config: ModelConfig, capacity: int, device: torch.device, dtype: torch.dtype
    ) -> None:
        shape = (1, config.num_key_value_heads, capacity, config.head_dim)
        self.keys = [
            torch.zeros(shape, device=device, dtype=dtype) for _ in range(config.num_hidden_layers)
        ]
        self.values = [
            torch.zeros(shape, device=device, dtype=dtype) for _ in range(config.num_hidden_layers)
        ]
        self.capacity = capacity
        self.length = 0

    def truncate(self, length: int) -> None:
        if not 0 <= length <= self.length:
            raise ValueError(f"cannot truncate a cache of {self.length} positions to {length}")
        self.length = length


@dataclass
class Pass:
    """What every layer of one forward pass shares: the rotary tables of its positions, the
    cache it appends to (None: a whole sequence from its start) and, for several new tokens
    after a cached prefix, the mask that lets each see the prefix and the new tokens before it.

    Both layouts of the model (:class:`LlamaForCausalLM`, and the decoding one of
    :mod:`.decoding_llama`) make one with :meth:`start` and attend with :func:`attend`, so their
    positions, cache and masks are one piece of code.
    """

    cos: torch.Tensor
    sin: torch.Tensor
    cache: KVCache | None
    start: int
    mask: torch.Tensor | None

    @classmethod
    def begin(
        cls,
        rope: tuple[torch.Tensor, ...],
        length: int,
        cache: KVCache | None,
        limit: int,
        dtype: torch.dtype,
    ) -> Pass:
        """The pass that appends ``length`` tokens to ``cache`` (``limit``: the most positions
        the model can take without a cache)."""
        start = cache.length if cache is not None else 0
        room = cache.capacity if cache is not None else limit
        if start + length > room:
            holder = "cache" if cache is not None else "model"
            raise ValueError(f"the {holder} holds {room} positions; {start + length} needed")
        mask = None
        if start > 0 and length > 1:
            device = rope[0].device
            mask = torch.ones(length, start + length, dtype=torch.bool, device=device)
            mask = mask.tril(diagonal=start)
        cos = rope[0][start : start + length].to(dtype)
        sin = rope[1][start : start + length].to(dtype)
        return cls(cos, sin, cache, start, mask)

    def end(self, length: int) -> None:
        """After the last layer: the cache holds the pass's tokens."""
        if self.cache is not None:
            self.cache.length += length


def attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, step: Pass, layer: int
) -> torch.Tensor:
    """Causal attention of the pass's queries over the cached keys and values and their own
    (written to the cache first); heads on dimension 1."""
    cache = step.cache
    if cache is not None:
        length = q.shape[2]
        cache.keys[layer].narrow(2, step.start, length).copy_(k)
        cache.values[layer].narrow(2, step.start, length).copy_(v)
        k = cache.keys[layer].narrow(2, 0, step.start + length)
        v = cache.values[layer].narrow(2, 0, step.start + length)
    groups = q.shape[1] // k.shape[1]
    if groups > 1:
        k = k.repeat_interleave(groups, dim=1)
        v = v.repeat_interleave(groups, dim=1)
    if step.mask is None:  # from the start (causal), or one token after the cache (sees all)
        causal = step.start == 0 and q.shape[2] > 1
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=step.mask)


class Attention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        heads, kv_heads, head_dim = (
            config.num_attention_heads,
            config.num_key_value_heads,
            config.head_dim,
        )
        self.q_proj = nn.Linear(config.hidden_size, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(heads * head_dim, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor, step: Pass, layer: int) -> torch.Tensor:
        batch, length, _ = x.shape
        cfg = self.config
        shape = (batch, length, -1, cfg.head_dim)
        q = self.q_proj(x).view(shape).transpose(1, 2)
        k = self.k_proj(x).view(shape).transpose(1, 2)
        v = self.v_proj(x).view(shape).transpose(1, 2)
        q = apply_rope(q, step.cos, step.sin)
        k = apply_rope(k, step.cos, step.sin)
        out = attend(q, k, v, step, layer).transpose(1, 2).reshape(batch, length, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor, step: Pass, layer: int) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), step, layer)
        return x + self.mlp(self.post_attention_layernorm(x))


class Decoder(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)


class CausalLM(nn.Module):
    """The forward pass and cache of a Llama, whatever the layout of its weights.

    A layout says how a pass over some tokens begins (:meth:`_begin`: the rotary tables of its
    positions, what it may take) and gives its parts (:meth:`_parts`: the embedding table, the
    layers, each ``layer(x, step, index)``, and the final norm with the output projection);
    the pass itself, the cache and what is kept of the logits are this one piece of code.
    """

    config: ModelConfig

    def _begin(self, input_ids: torch.Tensor, cache: KVCache | None) -> Pass:
        raise NotImplementedError

    def _parts(self) -> tuple[nn.Embedding, nn.ModuleList, Callable[[torch.Tensor], torch.Tensor]]:
        raise NotImplementedError

    def forward(
        self,
        input_ids: torch.Tensor,
        cache: KVCache | None = None,
        last_only: bool = False,
        keep: int | None = None,
    ) -> torch.Tensor:
        """Logits for every position of ``input_ids`` (appended to ``cache`` when given).

        ``last_only``: the last position's logits alone (decoding needs no more; a long prompt
        then skips most of the output projection). ``keep``: the last ``keep`` positions' logits
        (a decoder checking drafted tokens needs one row per drafted token and one after them).
        """
        embed, layers, head = self._parts()
        step = self._begin(input_ids, cache)
        x = embed(input_ids)
        for i, layer in enumerate(layers):
            x = layer(x, step, i)
        step.end(input_ids.shape[1])
        if last_only or keep is not None:
            x = x[:, -(1 if last_only else keep) :]
        return head(x)

    def new_cache(self, capacity: int | None = None) -> KVCache:
        param = self._parts()[0].weight
        return KVCache(
            self.config, capacity or self.config.max_position_embeddings, param.device, param.dtype
        )


class LlamaForCausalLM(CausalLM):
    """``model.*`` and ``lm_head`` exactly as HF names them."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.model = Decoder(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        self._rope: tuple[torch.Tensor, torch.Tensor] | None = None
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith(("o_proj.weight", "down_proj.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * config.num_hidden_layers))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear | nn.Embedding):
            nn.init.normal_(module.weight, std=0.02)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def _rope_for(self, end: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        if self._rope is None or self._rope[0].shape[0] < end or self._rope[0].device != device:
            length = max(end, self.config.max_position_embeddings)
            cos, sin = rope_tables(self.config, length, device)
            self._rope = (cos, sin)
        return self._rope

    def _begin(self, input_ids: torch.Tensor, cache: KVCache | None) -> Pass:
        length = input_ids.shape[1]
        rope = self._rope_for(length + (cache.length if cache else 0), input_ids.device)
        dtype = self.model.embed_tokens.weight.dtype  # (not lm_head's: it may be quantised)
        return Pass.begin(rope, length, cache, 1 << 30, dtype)

    def _parts(self) -> tuple[nn.Embedding, nn.ModuleList, Callable[[torch.Tensor], torch.Tensor]]:
        return self.model.embed_tokens, self.model.layers, self._head

    def _head(self, x: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.model.norm(x))


TOKENIZER_FINGERPRINT = "ndb_tokenizer_sha256"


def save_pretrained(
    model: LlamaForCausalLM,
    folder: Path,
    dtype: torch.dtype = torch.bfloat16,
    max_shard_bytes: int = MAX_SHARD_BYTES,
) -> list[Path]:
    """Write ``config.json`` and safetensors shards of at most ``max_shard_bytes`` each."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("model*.safetensors*"):
        old.unlink()
    tensors = {
        name: tensor.detach().to("cpu", dtype).contiguous()
        for name, tensor in model.state_dict().items()
        if not (model.config.tie_word_embeddings and name == "lm_head.weight")
    }
    shards: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    for name, tensor in tensors.items():
        nbytes = tensor.numel() * tensor.element_size()
        if shards[-1] and size + nbytes > max_shard_bytes:
            shards.append({})
            size = 0
        shards[-1][name] = tensor
        size += nbytes
    written = []
    if len(shards) == 1:
        path = folder / "model.safetensors"
        save_file(shards[0], str(path), metadata={"format": "pt"})
        written.append(path)
    else:
        weight_map = {}
        for i, shard in enumerate(shards, start=1):
            name = f"model-{i:05d}-of-{len(shards):05d}.safetensors"
            save_file(shard, str(folder / name), metadata={"format": "pt"})
            weight_map.update(dict.fromkeys(shard, name))
            written.append(folder / name)
        total = sum(t.numel() * t.element_size() for t in tensors.values())
        index = {"metadata": {"total_size": total}, "weight_map": weight_map}
        (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    dtype_name = str(dtype).removeprefix("torch.")
    config = model.config.to_hf(dtype_name)
    if (folder / "tokenizer.json").exists():  # the weights' own tokenizer, saved first
        config[TOKENIZER_FINGERPRINT] = tokenizer_fingerprint(folder / "tokenizer.json")
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    generation = {
        "bos_token_id": model.config.bos_token_id,
        "eos_token_id": model.config.eos_token_id,
        "do_sample": False,
    }
    (folder / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
    return written


def load_pretrained(
    folder: Path, device: str | torch.device = "cpu", dtype: torch.dtype = torch.float32
) -> LlamaForCausalLM:
    """Load a model folder written by :func:`save_pretrained` (or any HF Llama checkpoint)."""
    folder = Path(folder)
    config_path = folder / "config.json"
    if not config_path.exists():
        raise FileNotFoundError(f"no config.json in {folder}: not a model folder")
    try:
        config = ModelConfig.from_hf(json.loads(config_path.read_text()))
    except (json.JSONDecodeError, TypeError) as err:
        raise ValueError(f"{config_path} is not a valid model config: {err}") from None
    index = folder / "model.safetensors.index.json"
    if index.exists():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    tensors: dict[str, torch.Tensor] = {}
    for name in files:
        path = folder / name
        if not path.exists():
            raise FileNotFoundError(f"missing weights file {path}")
        try:
            tensors.update(load_file(str(path)))
        except Exception as err:  # safetensors raises its own error types for corrupt files
            raise ValueError(f"{path} is not a readable safetensors file: {err}") from None
    model = LlamaForCausalLM(config)
    if config.tie_word_embeddings:
        tensors.pop("lm_head.weight", None)
    expected = {
        k for k in model.state_dict() if not (config.tie_word_embeddings and k == "lm_head.weight")
    }
    missing = expected - set(tensors)
    unexpected = set(tensors) - expected
    if missing or unexpected:
        raise ValueError(
            f"weights in {folder} do not match config.json: missing {sorted(missing)[:5]}, "
            f"unexpected {sorted(unexpected)[:5]}"
        )
    try:
        model.load_state_dict(tensors, strict=False)
    except RuntimeError as err:
        raise ValueError(f"weights in {folder} do not fit config.json: {err}") from None
    return model.to(device=device, dtype=dtype).eval()
