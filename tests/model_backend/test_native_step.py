"""The native step (a pass over a few tokens in C) computes what the torch pass computes."""

from __future__ import annotations

import os
import platform
import shutil

import pytest
import torch

from neural_debugger.model_backend.backend import ModelFolderError
from neural_debugger.model_backend.decoding_llama import DecodingLlama
from neural_debugger.model_backend.llama import LlamaForCausalLM, ModelConfig, load_pretrained
from neural_debugger.model_backend.local import decoding_model, load_model
from neural_debugger.model_backend.native_step import (
    FLAGS,
    MAX_TOKENS,
    NativeStep,
    build_library,
    panels,
    unavailable_reason,
)
from neural_debugger.model_backend.quantize import kernels_available
from neural_debugger.paths import default_model_dir

needs_native = pytest.mark.skipif(
    unavailable_reason() is not None or not kernels_available(),
    reason=f"the native step cannot run here: {unavailable_reason()}",
)


def _pair(source: LlamaForCausalLM) -> tuple[DecodingLlama, DecodingLlama]:
    """The default weights in torch's pass and in the native step's."""
    return (
        decoding_model(source, "fp16", "torch").eval(),
        decoding_model(source, "fp16", "native").eval(),
    )


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal up to float32 rounding, relative to the logits' size."""
    return float((a - b).abs().max()) <= 1e-5 * max(1.0, float(b.abs().max()))


@needs_native
@torch.no_grad()
def test_the_shipped_model_gives_torchs_logits_and_cache_rollback_included() -> None:
    torch_pass, native_pass = _pair(load_pretrained(default_model_dir()))
    assert native_pass.native is not None and torch_pass.native is None
    caches = torch_pass.new_cache(), native_pass.new_cache()
    prompt = torch.randint(0, 4000, (1, 120))  # longer than MAX_TOKENS: torch's pass for both
    first = torch_pass(prompt, caches[0], keep=1)
    assert torch.equal(first, native_pass(prompt, caches[1], keep=1))
    for width in (1, 4, 5, 7, MAX_TOKENS):  # the native step for all of these
        ids = torch.randint(0, 4000, (1, width))
        expected, got = torch_pass(ids, caches[0]), native_pass(ids, caches[1])
        assert got.shape == expected.shape == (1, width, 4096)
        assert _close(got, expected)
        assert torch.equal(got.argmax(-1), expected.argmax(-1))
    assert caches[0].length == caches[1].length == 120 + 1 + 4 + 5 + 7 + MAX_TOKENS
    filled = caches[0].length
    pairs = zip(caches[1].keys + caches[1].values, caches[0].keys + caches[0].values, strict=True)
    for mine, theirs in pairs:
        assert _close(mine[:, :, :filled], theirs[:, :, :filled])
    for cache in caches:
        cache.truncate(121)  # a step back: the prefix kept, the rest written again
    ids = torch.randint(0, 4000, (1, 3))
    assert _close(native_pass(ids, caches[1], last_only=True), torch_pass(ids, caches[0])[:, -1:])


@needs_native
@torch.no_grad()
def test_a_tokens_logits_do_not_depend_on_the_tokens_sharing_its_pass() -> None:
    """Bit for bit: four at once, five at once (four and one in C), one by one."""
    _, native_pass = _pair(load_pretrained(default_model_dir()))
    cache = native_pass.new_cache()
    native_pass(torch.randint(0, 4000, (1, 50)), cache)
    ids = torch.randint(0, 4000, (1, 5))
    together = native_pass(ids, cache)
    cache.truncate(50)
    alone = torch.cat([native_pass(ids[:, i : i + 1], cache) for i in range(5)], 1)
    cache.truncate(50)
    four = torch.cat([native_pass(ids[:, :4], cache), native_pass(ids[:, 4:], cache)], 1)
    assert torch.equal(together, alone) and torch.equal(together, four)


@needs_native
@torch.no_grad()
def test_grouped_heads_odd_sizes_and_an_untied_output() -> None:
    """Rows that fill no whole panel, columns that fill no whole vector, two heads per key."""
    config = ModelConfig(
        vocab_size=70,
        hidden_size=40,
        intermediate_size=52,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    source = LlamaForCausalLM(config).eval()
    readable = LlamaForCausalLM(config).eval()
    readable.load_state_dict(source.state_dict())
    for name, parameter in readable.named_parameters():  # the float16 matrices both read
        if name.endswith(("proj.weight", "lm_head.weight")):
            parameter.data = parameter.data.half().float()
    _, native_pass = _pair(source)
    ids = torch.randint(0, 70, (1, 12))
    cache, reference = native_pass.new_cache(), readable.new_cache()
    for chunk in (ids[:, :7], ids[:, 7:8], ids[:, 8:]):
        assert _close(native_pass(chunk, cache), readable(chunk, reference))


@needs_native
@torch.no_grad()
def test_other_instruction_sets_compute_the_same() -> None:
    """The AVX2 build and the portable C build (no vector instructions) agree with the native
    one up to rounding (attention's sums run over vectors of 8 floats, or none, not 16 as
    with AVX-512; on a machine without AVX-512 the native build is the AVX2 one)."""
    source = load_pretrained(default_model_dir())
    _, native_pass = _pair(source)
    ids = torch.randint(0, 4000, (1, 30))
    cache = native_pass.new_cache()
    native_pass(ids[:, :24], cache)
    expected = native_pass(ids[:, 24:], cache)
    shared = ("-std=c11", "-shared", "-fPIC")
    avx512 = _cpu_has("avx512f")
    for flags, differs in (
        (("-O3", "-mavx2", "-mfma", "-mf16c", "-mno-avx512f", *shared), avx512),
        (("-O2", "-mno-avx", "-mno-avx2", "-mno-fma", *shared), True),
    ):
        library = build_library(flags)
        assert not isinstance(library, str), library
        other = DecodingLlama(source).eval()
        other.native = NativeStep(DecodingLlama(source), library)
        cache = other.new_cache()
        other(ids[:, :24], cache)
        got = other(ids[:, 24:], cache)
        assert _close(got, expected)
        if differs:  # another build: other roundings
            assert not torch.equal(got, expected)


def _cpu_has(flag: str) -> bool:
    """Whether this machine's processor has the instruction-set ``flag`` (Linux's cpuinfo)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            return any(flag in line.split() for line in info if line.startswith("flags"))
    except OSError:
        return False


def test_panels_hold_each_row_in_order_and_pad_with_zeros() -> None:
    weight = torch.arange(70 * 3, dtype=torch.float16).view(70, 3)
    laid = panels(weight)
    assert laid.shape == (2, 3, 64)
    assert torch.equal(laid[0, :, 5], weight[5]) and torch.equal(laid[1, :, 5], weight[69])
    assert not laid[1, :, 6:].any()


@needs_native
@torch.no_grad()
def test_bad_input_is_refused_and_the_cache_keeps_serving() -> None:
    _, native_pass = _pair(load_pretrained(default_model_dir()))
    cache = native_pass.new_cache(40)
    native_pass(torch.randint(0, 4000, (1, 30)), cache)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        native_pass(torch.tensor([[5, 99999]]), cache)
    with pytest.raises(ValueError, match="holds 40 positions; 42 needed"):
        native_pass(torch.randint(0, 4000, (1, 12)), cache)
    assert cache.length == 30
    assert native_pass(torch.tensor([[5]]), cache).shape == (1, 1, 4096)


def test_builds_that_cannot_happen_say_why(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NDB_CACHE_DIR", str(tmp_path))
    assert build_library(FLAGS, "no-such-compiler") == (
        "no C compiler (no-such-compiler) to build the native step"
    )
    failed = build_library((*FLAGS, "-Werror=this-flag-does-not-exist"))
    assert isinstance(failed, str) and failed.startswith("building the native step failed")
    assert not list(tmp_path.glob("*.so"))


@pytest.mark.parametrize(
    ("quantize", "step", "expected"),
    [
        (None, None, "native"),  # the default where it can run
        ("fp16", "torch", "torch"),
        ("none", "auto", "torch"),  # float32 weights: torch's pass
        ("int8", None, "torch"),
    ],
)
def test_the_setting_chooses_the_pass(monkeypatch, quantize, step, expected) -> None:
    monkeypatch.delenv("NDB_QUANTIZE", raising=False)
    monkeypatch.delenv("NDB_STEP", raising=False)
    if step is not None:
        monkeypatch.setenv("NDB_STEP", step)
    if expected == "native" and (unavailable_reason() or not kernels_available()):
        expected = "torch"  # auto keeps torch's pass where the native step cannot run
    loaded = load_model(default_model_dir().resolve(), "cpu", quantize)
    assert loaded.step == expected
    assert (loaded.model.native is not None) == (expected == "native")


def test_asking_for_the_native_step_where_it_cannot_run_is_an_error(monkeypatch) -> None:
    monkeypatch.setenv("NDB_STEP", "native")
    with pytest.raises(ModelFolderError, match="float16 weights, not int8 ones"):
        load_model(default_model_dir().resolve(), "cpu", "int8")
    monkeypatch.setenv("NDB_STEP", "fast")
    with pytest.raises(ModelFolderError, match="unknown step 'fast'"):
        load_model(default_model_dir().resolve(), "cpu")


def test_x86_64_machines_with_a_compiler_get_it() -> None:
    reason = unavailable_reason()
    if platform.machine().lower() not in ("x86_64", "amd64"):
        assert reason is not None and "x86-64" in reason
    elif shutil.which(os.environ.get("CC") or "cc"):
        assert reason is None
    else:
        assert reason is not None and reason.startswith("no C compiler")
