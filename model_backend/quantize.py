"""int8 weights for the embedded engine on a CPU: dynamic quantisation of the linear layers.

Why: decoding one token reads every weight once, so on a laptop CPU its floor is the bytes of
weights over the memory bandwidth; int8 weights are a quarter of float32's bytes, and the int8
matrix kernels (fbgemm on x86 with AVX2, onednn elsewhere) quantise each activation row on the fly.
Every ``nn.Linear`` (attention and MLP projections, and the output projection) gets int8 weights
with one scale per output row; the embedding table and the norms stay in float32, so the tied
output projection gets an int8 copy of the table while lookups read the exact one.

It is an option (``NDB_QUANTIZE=int8`` or ``quantize="int8"``), measured against float32 on the
held-out next-state items (see the speed notes in the docs).
"""

from __future__ import annotations

import os
import warnings

import torch
from torch import nn

QUANTIZE_CHOICES = ("none", "int8")
QUANTIZE_ENV = "NDB_QUANTIZE"


def quantize_setting(value: str | None = None) -> str:
    """The quantisation asked for: ``value``, else ``$NDB_QUANTIZE``, else ``none``."""
    chosen = (value if value is not None else os.environ.get(QUANTIZE_ENV) or "none").lower()
    if chosen not in QUANTIZE_CHOICES:
        raise ValueError(
            f"unknown quantisation {chosen!r} (from {QUANTIZE_ENV} or --quantize); "
            f"choose one of {', '.join(QUANTIZE_CHOICES)}"
        )
    return chosen


def quantize_int8(model: nn.Module) -> nn.Module:
    """``model`` with int8 linear layers (in place where torch allows; use the returned one)."""
    if next(model.parameters()).device.type != "cpu":
        raise ValueError("int8 weights are for the CPU; load the model on the CPU to use them")
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():  # torch marks eager-mode quantisation as moving to torchao
        warnings.simplefilter("ignore")
        return quantize_dynamic(
            model.float(), {nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8, inplace=True
        )
