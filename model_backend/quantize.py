"""int8 weights for the embedded engine on a CPU: dynamic quantisation of the linear layers.

Why: decoding one token reads every weight once, so on a laptop CPU its floor is the bytes of
weights over the memory bandwidth; int8 weights are a quarter of float32's bytes, and the int8
matrix kernels (fbgemm on x86 with AVX2, onednn elsewhere) quantise each activation row on the fly.
The linear layers get int8 weights with one scale per output row: the attention projections,
the MLP's gate and up projection and the output projection (an int8 copy of the tied table;
lookups read the exact one). The MLP's down projection stays float32: its input, the SwiGLU
product, has a few very large values, and one activation scale per row for them rounds the rest
away (quantised too, the next-token choice agreed with float32's on 68% of a real prompt's
positions; left out, on 87%). The norms and the embedding table stay float32.

It is an option (``NDB_QUANTIZE=int8`` or ``quantize="int8"``), measured against float32 on the
held-out next-state items (see the speed notes in the docs).
"""

from __future__ import annotations

import os
import warnings
from typing import TypeVar

import torch
from torch import nn

QUANTIZE_CHOICES = ("none", "int8")
QUANTIZE_ENV = "NDB_QUANTIZE"
FLOAT_LAYERS = ("down_proj",)  # layers kept in float32 (see above)


def quantize_setting(value: str | None = None) -> str:
    """The quantisation asked for: ``value``, else ``$NDB_QUANTIZE``, else ``none``."""
    chosen = (value if value is not None else os.environ.get(QUANTIZE_ENV) or "none").lower()
    if chosen not in QUANTIZE_CHOICES:
        raise ValueError(
            f"unknown quantisation {chosen!r} (from {QUANTIZE_ENV} or --quantize); "
            f"choose one of {', '.join(QUANTIZE_CHOICES)}"
        )
    return chosen


M = TypeVar("M", bound=nn.Module)


def quantize_int8(model: M) -> M:
    """``model`` with int8 linear layers (in place where torch allows; use the returned one)."""
    if next(model.parameters()).device.type != "cpu":
        raise ValueError("int8 weights are for the CPU; load the model on the CPU to use them")
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    names = {
        name
        for name, module in model.named_modules()
        if isinstance(module, nn.Linear) and not name.endswith(FLOAT_LAYERS)
    }
    with warnings.catch_warnings():  # torch marks eager-mode quantisation as moving to torchao
        warnings.simplefilter("ignore")
        return quantize_dynamic(  # type: ignore[no-any-return,no-untyped-call]
            model.float(),
            dict.fromkeys(names, per_channel_dynamic_qconfig),
            dtype=torch.qint8,
            inplace=True,
        )
