"""The decoding layout computes what the readable model computes, cache and rollback included."""

from __future__ import annotations

import torch

from neural_debugger.model_backend.decoding_llama import DecodingLlama
from neural_debugger.model_backend.llama import (
    LlamaForCausalLM,
    ModelConfig,
    apply_rope,
    load_pretrained,
    rope_tables,
)
from neural_debugger.paths import default_model_dir


def _pair(config: ModelConfig | None = None) -> tuple[LlamaForCausalLM, DecodingLlama]:
    if config is None:
        model = load_pretrained(default_model_dir())
    else:
        torch.manual_seed(0)
        model = LlamaForCausalLM(config).eval()
    return model, DecodingLlama(model).eval()


@torch.no_grad()
def test_same_logits_whole_in_chunks_and_after_a_rollback() -> None:
    model, fast = _pair()
    ids = torch.randint(0, model.config.vocab_size, (1, 40))
    whole = model(ids)
    assert torch.allclose(fast(ids), whole, atol=1e-4)
    cache = fast.new_cache(64)
    parts = [fast(ids[:, :25], cache, keep=3), fast(ids[:, 25:26], cache), fast(ids[:, 26:], cache)]
    assert torch.allclose(parts[0], whole[:, 22:25], atol=1e-4)
    assert torch.allclose(torch.cat(parts[1:], 1), whole[:, 25:], atol=1e-4)
    cache.truncate(30)  # a step back: the prefix is kept, the rest written again
    other = torch.randint(0, model.config.vocab_size, (1, 5))
    again = fast(other, cache)
    reference = model(torch.cat([ids[:, :30], other], 1))[:, 30:]
    assert torch.allclose(again, reference, atol=1e-4)
    assert cache.length == 35


@torch.no_grad()
def test_grouped_heads_and_untied_output() -> None:
    config = ModelConfig(
        vocab_size=50,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=False,
    )
    model, fast = _pair(config)
    ids = torch.randint(0, 50, (1, 12))
    cache, reference = fast.new_cache(), model.new_cache()
    for chunk in (ids[:, :7], ids[:, 7:8], ids[:, 8:]):
        assert torch.allclose(fast(chunk, cache), model(chunk, reference), atol=1e-5)


def test_rotary_embedding_is_hugging_faces() -> None:
    """``apply_rope`` with the signed tables gives HF's ``x * cos + rotate_half(x) * sin``
    exactly (the checkpoints load into transformers and vLLM, which compute it that way)."""
    config = ModelConfig(vocab_size=50, hidden_size=32, num_attention_heads=2)
    cos, signed_sin = rope_tables(config, 9, torch.device("cpu"))
    half = config.head_dim // 2
    inv_freq = 1.0 / (
        config.rope_theta ** (torch.arange(0, config.head_dim, 2).float() / config.head_dim)
    )
    angles = torch.outer(torch.arange(9).float(), inv_freq).repeat(1, 2)
    x = torch.randn(1, 2, 9, config.head_dim)
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    assert torch.equal(cos, angles.cos())
    assert torch.equal(apply_rope(x, cos, signed_sin), x * angles.cos() + rotated * angles.sin())
