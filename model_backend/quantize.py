"""Smaller weights for the embedded engine on a CPU: float16 (the default) or int8.

Why: decoding one token reads every weight once, so on a laptop CPU its floor is the bytes of
weights over the memory bandwidth, and a model whose weights fit the CPU's cache runs from the
cache. torch's x86 matrix kernels (fbgemm, AVX2 or AVX-512) multiply float32 activations with
weights stored in fewer bytes:

* ``fp16``: every linear layer's weights in float16, converted to float32 inside the kernel and
  multiplied in float32. The shipped weights are bfloat16, whose values float16 holds exactly
  (but the very smallest), so the logits are float32's up to rounding, a token's logits do not
  depend on which tokens share its forward pass (beyond rounding), and nothing is quantised.
  Half the bytes of float32, and fbgemm's kernel has a lower fixed cost per call than float32's
  for a few tokens (measured in the speed notes of the docs). The default wherever the kernel
  exists (``auto``).
* ``int8``: int8 weights (one scale per output row) for the attention projections, the MLP's
  gate and up projection and the output projection (an int8 copy of the tied table; lookups read
  the exact one); the MLP's down projection in float16, because its input, the SwiGLU product,
  has a few very large values that one 8-bit scale per row rounds away. An option, not the
  default: it loses a little accuracy, and 8-bit activations have rounding thresholds.

Why int8 quantises each token on its own: a kernel that quantises its input with one scale for
the whole input (torch's dynamic quantisation) makes a token's logits depend on which other
tokens share its forward pass, so a state could differ between a pass with drafted tokens and
one without, or between a cached step and one encoded from scratch. :class:`Int8Linear` divides
each row (token) of the input by its own largest magnitude, so every row lies in [-1, 1] and the
kernel's input scale is a constant (:data:`INPUT_SCALE`); the integer products are exact and the
row is multiplied back afterwards, so a layer's output for a token depends on that token's
input alone, bit for bit. (Float rounding before a layer can still move a value across a
rounding threshold, which float16 weights never have.) The activations get 7 bits (values
1..127 around a zero point of 64): two 8-bit products overflow the 16-bit sums of AVX2's int8
instruction, 7-bit ones never do.

``NDB_QUANTIZE=none`` keeps float32 everywhere. The norms and the embedding table are float32 in
every setting.
"""

from __future__ import annotations

import os
import warnings
from typing import TypeVar

import torch
from torch import nn

QUANTIZE_CHOICES = ("auto", "none", "fp16", "int8")
QUANTIZE_ENV = "NDB_QUANTIZE"
FLOAT16_IN_INT8 = ("down_proj",)  # layers kept in float16 by the int8 setting (see above)
WEIGHT_NAMES = {"none": "float32", "fp16": "float16", "int8": "int8"}  # per resolved setting
INPUT_LEVELS = 63  # a row's largest magnitude becomes 63 steps from the zero point
INPUT_ZERO_POINT = 64
INPUT_SCALE = 1.0 / INPUT_LEVELS


def quantize_setting(value: str | None = None) -> str:
    """The setting asked for: ``value``, else ``$NDB_QUANTIZE``, else ``auto``."""
    chosen = (value if value is not None else os.environ.get(QUANTIZE_ENV) or "auto").lower()
    if chosen not in QUANTIZE_CHOICES:
        raise ValueError(
            f"unknown quantisation {chosen!r} (from {QUANTIZE_ENV} or --quantize); "
            f"choose one of {', '.join(QUANTIZE_CHOICES)}"
        )
    return chosen


def kernels_available() -> bool:
    """Whether this torch has the x86 (fbgemm) kernels the fp16 and int8 layers run on."""
    engines = torch.backends.quantized.supported_engines
    ops = torch.ops.quantized
    return (
        ("x86" in engines or "fbgemm" in engines)
        and hasattr(ops, "linear_dynamic_fp16")
        and hasattr(ops, "linear_with_input_q_dq_qweight_dq_output_fp32")
    )


def resolve_setting(setting: str, device: str) -> str:
    """``none``, ``fp16`` or ``int8`` for a model on ``device`` (``"cpu"``, ``"cuda"``):
    ``auto`` is fp16 on a CPU that has the kernels, else none; an explicit ``fp16`` or ``int8``
    where it cannot run is an error."""
    if setting == "auto":
        return "fp16" if device == "cpu" and kernels_available() else "none"
    if setting != "none":
        if device != "cpu":
            raise ValueError(
                f"{setting} weights are for the CPU; load the model on the CPU to use them"
            )
        if not kernels_available():
            raise ValueError(f"this torch has no x86 {setting} kernels; use NDB_QUANTIZE=none")
    return setting


def _quiet(fn: object, *args: object) -> torch.ScriptObject:
    with warnings.catch_warnings():  # torch marks quantised tensors as moving to torchao
        warnings.simplefilter("ignore")
        return fn(*args)  # type: ignore[operator,no-any-return]


class PackedLinear(nn.Module):
    """A bias-free linear layer whose weights fbgemm holds packed (its kernels' own layout)."""

    kind = ""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        if linear.bias is not None:
            raise ValueError(f"{type(self).__name__} takes linear layers without a bias")
        self.in_features: int = linear.in_features
        self.out_features: int = linear.out_features
        self._packed: torch.ScriptObject = self._pack(linear.weight.detach().float().cpu())

    def _pack(self, weight: torch.Tensor) -> torch.ScriptObject:
        raise NotImplementedError

    @property
    def weight_bytes(self) -> int:
        """Bytes of weights one token reads."""
        return self.in_features * self.out_features * (2 if self.kind == "float16" else 1)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, {self.kind}"


class Fp16Linear(PackedLinear):
    """Float16 weights, float32 arithmetic."""

    kind = "float16"

    def _pack(self, weight: torch.Tensor) -> torch.ScriptObject:
        return _quiet(torch.ops.quantized.linear_prepack_fp16, weight, None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = torch.ops.quantized.linear_dynamic_fp16(x, self._packed)
        return out


class Int8Linear(PackedLinear):
    """int8 weights (one scale per output row); the input quantised token by token."""

    kind = "int8"

    def _pack(self, weight: torch.Tensor) -> torch.ScriptObject:
        scales = (weight.abs().amax(1) / 127).clamp_min(torch.finfo(torch.float32).tiny).double()
        zeros = torch.zeros(weight.shape[0], dtype=torch.long)
        qweight = _quiet(torch.quantize_per_channel, weight, scales, zeros, 0, torch.qint8)
        return _quiet(torch.ops.quantized.linear_prepack, qweight, None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, self.in_features)
        size = torch.linalg.vector_norm(rows, float("inf"), -1, keepdim=True)
        size = size.clamp_min_(torch.finfo(torch.float32).tiny)  # an all-zero row stays zero
        out: torch.Tensor = torch.ops.quantized.linear_with_input_q_dq_qweight_dq_output_fp32(
            rows / size, INPUT_SCALE, INPUT_ZERO_POINT, self._packed
        )
        return out.mul_(size).view(*x.shape[:-1], self.out_features)


M = TypeVar("M", bound=nn.Module)


def quantize_weights(model: M, setting: str) -> M:
    """``model`` with its linear layers stored as ``setting`` says (``fp16``: all float16;
    ``int8``: int8 but :data:`FLOAT16_IN_INT8`; ``none``: unchanged), in place."""
    if setting == "none":
        return model
    if setting not in ("fp16", "int8"):
        raise ValueError(f"no such weights: {setting!r}")
    resolve_setting(setting, next(model.parameters()).device.type)  # refuses where it cannot run
    model.float()
    swaps = [
        (parent, name, child)
        for parent in model.modules()
        for name, child in parent.named_children()
        if type(child) is nn.Linear
    ]
    for parent, name, child in swaps:
        int8 = setting == "int8" and not name.endswith(FLOAT16_IN_INT8)
        setattr(parent, name, Int8Linear(child) if int8 else Fp16Linear(child))
    return model


def quantize_int8(model: M) -> M:
    """``model`` with the int8 setting's layers (:func:`quantize_weights`), in place."""
    return quantize_weights(model, "int8")
