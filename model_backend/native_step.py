"""The decoding layout's forward pass as one C call, for passes over a few tokens on a CPU.

Why: a pass over one token of the embedded model is a few hundred small torch operations, and
their fixed costs (Python, the dispatcher, allocation, fbgemm's per-call set-up) took about two
thirds of its time, not the reading of weights that bounds it. ``native_step.c`` is the same
pass in one call: float16 weights (the default weights, :mod:`.quantize`), float32 arithmetic,
the session's own float32 :class:`.llama.KVCache`, so a session rolls back and steps back as
before. Longer passes (a prompt encoded from the start) stay with torch, whose matrix kernels
are faster there.

The C file is compiled once per machine with the machine's C compiler (``$CC``, else ``cc``;
``-O3 -march=native``) into a cache folder (:func:`cache_dir`) and loaded with ``ctypes``: no
torch headers, under a second to build. Where there is no compiler, the build fails or the CPU
is not x86-64, ``NDB_STEP=auto`` (the default) keeps torch's pass and :func:`unavailable_reason`
says why; ``NDB_STEP=torch`` always keeps it.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, cast

import torch

from .decoding_llama import DecodingLayer, DecodingLlama
from .llama import KVCache

STEP_CHOICES = ("auto", "native", "torch")
STEP_ENV = "NDB_STEP"
MAX_TOKENS = 24  # longer passes (a prompt from its start) are faster in torch (docs/speed.md)
PANEL = 64  # rows per block of a matrix in the C pass's layout (PANEL in native_step.c)
SOURCE = Path(__file__).with_name("native_step.c")
FLAGS = ("-O3", "-march=native", "-std=c11", "-shared", "-fPIC")

_FLOAT_P = ctypes.POINTER(ctypes.c_float)
_HALF_P = ctypes.POINTER(ctypes.c_uint16)


class _Model(ctypes.Structure):
    """``ndb_model`` of the C file, field for field."""

    _fields_ = [
        *((name, ctypes.c_int32) for name in ("hidden", "intermediate", "heads", "kv_heads")),
        *((name, ctypes.c_int32) for name in ("head_dim", "vocab", "layers", "max_positions")),
        ("eps", ctypes.c_float),
        ("embed", _FLOAT_P),
        ("rope_cos", _FLOAT_P),
        ("rope_sin", _FLOAT_P),
        ("head", _HALF_P),
        ("final_norm", _FLOAT_P),
        ("qkv", ctypes.POINTER(_HALF_P)),
        ("o", ctypes.POINTER(_HALF_P)),
        ("gate_up", ctypes.POINTER(_HALF_P)),
        ("down", ctypes.POINTER(_HALF_P)),
        ("input_norm", ctypes.POINTER(_FLOAT_P)),
        ("post_norm", ctypes.POINTER(_FLOAT_P)),
    ]


def step_setting(value: str | None = None) -> str:
    """The setting asked for: ``value``, else ``$NDB_STEP``, else ``auto``."""
    chosen = (value if value is not None else os.environ.get(STEP_ENV) or "auto").lower()
    if chosen not in STEP_CHOICES:
        raise ValueError(
            f"unknown step {chosen!r} (from {STEP_ENV}); choose one of {', '.join(STEP_CHOICES)}"
        )
    return chosen


def cache_dir() -> Path:
    """``$NDB_CACHE_DIR``, else ``$XDG_CACHE_HOME/neural-debugger``, else ``~/.cache/...``."""
    if override := os.environ.get("NDB_CACHE_DIR"):
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "neural-debugger"


def library_path(compiler: str, flags: tuple[str, ...]) -> Path:
    """Where the library built from this source, with these flags, on this machine lives."""
    key = hashlib.sha256()
    for part in (SOURCE.read_bytes(), " ".join(flags).encode(), compiler.encode()):
        key.update(part)
    key.update(f"{platform.machine()} {platform.node()}".encode())
    return cache_dir() / f"native_step-{key.hexdigest()[:16]}.so"


def build_library(flags: tuple[str, ...] = FLAGS, compiler: str | None = None) -> ctypes.CDLL | str:
    """The C pass built with ``flags`` (once per machine: later calls load the cached build)
    and loaded, or why it cannot be. ``compiler``: else ``$CC``, else ``cc``."""
    name = compiler or os.environ.get("CC") or "cc"
    found = shutil.which(name)
    if found is None:
        return f"no C compiler ({name}) to build the native step"
    target = library_path(found, flags)
    try:
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
                built = Path(tmp) / target.name
                command = [found, *flags, str(SOURCE), "-o", str(built), "-lm"]
                done = subprocess.run(command, capture_output=True, text=True, timeout=300)
                if done.returncode != 0:
                    return f"building the native step failed: {done.stderr.strip()[-500:]}"
                built.replace(target)  # atomic: another process may build it at the same time
        library = ctypes.CDLL(str(target))
    except (OSError, subprocess.SubprocessError) as err:
        return f"building the native step failed: {err}"
    library.ndb_forward.restype = ctypes.c_int
    library.ndb_forward.argtypes = [
        ctypes.POINTER(_Model),
        ctypes.POINTER(ctypes.c_int64),
        ctypes.c_int,
        ctypes.c_int,
        ctypes.POINTER(_FLOAT_P),
        ctypes.POINTER(_FLOAT_P),
        ctypes.c_int,
        ctypes.c_int,
        _FLOAT_P,
        _FLOAT_P,
    ]
    library.ndb_work_floats.restype = ctypes.c_int64
    library.ndb_work_floats.argtypes = [ctypes.POINTER(_Model), ctypes.c_int, ctypes.c_int]
    return library


@functools.lru_cache(maxsize=1)
def _library() -> ctypes.CDLL | str:
    """The library this process uses (built with :data:`FLAGS`), or why there is none."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return f"the native step is built for x86-64 CPUs, not {platform.machine()}"
    return build_library()


def unavailable_reason() -> str | None:
    """Why the native step cannot run here (None: it can)."""
    found = _library()
    return found if isinstance(found, str) else None


def panels(weight: torch.Tensor) -> torch.Tensor:
    """``weight`` (rows x columns) as the C pass reads it: blocks of :data:`PANEL` rows, each
    stored column by column, the last padded with zero rows."""
    rows, columns = weight.shape
    padded = -(-rows // PANEL) * PANEL
    weight = torch.cat([weight, weight.new_zeros(padded - rows, columns)])
    return weight.view(padded // PANEL, PANEL, columns).transpose(1, 2).contiguous()


def _pointer(tensor: torch.Tensor, kind: Any) -> Any:
    """A ctypes pointer of type ``kind`` to ``tensor``'s data (which must outlive it)."""
    return ctypes.cast(tensor.data_ptr(), kind)


def _pointers(tensors: list[torch.Tensor], kind: Any) -> Any:
    """A C array of pointers of type ``kind`` to each of ``tensors``' data."""
    return (kind * len(tensors))(*(_pointer(t, kind) for t in tensors))


class NativeStep:
    """A :class:`.decoding_llama.DecodingLlama`'s weights in the C pass's layout (float16
    matrices in panels, float32 norms, embedding and rotary tables), and the pass itself."""

    def __init__(self, model: DecodingLlama, library: ctypes.CDLL | None = None) -> None:
        """``library``: a build of the C pass (:func:`build_library`); else this process's."""
        found = library or _library()
        if isinstance(found, str):
            raise RuntimeError(found)
        self._library = found
        config = model.config
        heads, kv_heads = config.num_attention_heads, config.num_key_value_heads
        if config.head_dim > 1024 or heads % kv_heads:
            raise ValueError("the native step takes heads of 1024 dimensions at most, grouped")
        layers = [cast(DecodingLayer, layer) for layer in model.layers]

        def half(linear: Any) -> torch.Tensor:
            return panels(linear.weight.detach().to("cpu", torch.float16))

        def single(tensor: torch.Tensor) -> torch.Tensor:
            return tensor.detach().to("cpu", torch.float32).contiguous()

        # kept here: the C side holds only pointers into these tensors and arrays
        self._singles = {
            "embed": single(model.embed_tokens.weight),
            "rope_cos": single(model._rope[0]),
            "rope_sin": single(model._rope[1]),
            "head": half(model.lm_head),
            "final_norm": single(model.norm),
        }
        self._per_layer = {
            "qkv": [half(layer.qkv_proj) for layer in layers],
            "o": [half(layer.o_proj) for layer in layers],
            "gate_up": [half(layer.gate_up_proj) for layer in layers],
            "down": [half(layer.down_proj) for layer in layers],
            "input_norm": [single(layer.input_norm) for layer in layers],
            "post_norm": [single(layer.post_norm) for layer in layers],
        }
        matrices = ("head", "qkv", "o", "gate_up", "down")
        fields = {
            name: _pointer(tensor, _HALF_P if name in matrices else _FLOAT_P)
            for name, tensor in self._singles.items()
        }
        self._arrays = {
            name: _pointers(tensors, _HALF_P if name in matrices else _FLOAT_P)
            for name, tensors in self._per_layer.items()
        }
        self._model = _Model(
            hidden=config.hidden_size,
            intermediate=config.intermediate_size,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=config.head_dim,
            vocab=config.vocab_size,
            layers=config.num_hidden_layers,
            max_positions=self._singles["rope_cos"].shape[0],
            eps=config.rms_norm_eps,
            **fields,
            **self._arrays,
        )
        self.vocab = config.vocab_size
        self.max_tokens = MAX_TOKENS

    def __call__(self, input_ids: torch.Tensor, cache: KVCache, keep: int) -> torch.Tensor:
        """Append ``input_ids`` (one sequence) to ``cache``; the logits of its last ``keep``
        positions, shaped ``(1, keep, vocab)``."""
        if input_ids.dim() != 2 or input_ids.shape[0] != 1:
            raise ValueError("the native step runs one sequence at a time")
        n, start = input_ids.shape[1], cache.length
        if start + n > cache.capacity:
            raise ValueError(f"the cache holds {cache.capacity} positions; {start + n} needed")
        ids = input_ids.to("cpu", torch.int64).contiguous()
        if cache.keys[0].dtype != torch.float32 or not cache.keys[0].is_contiguous():
            raise ValueError("the native step writes a contiguous float32 cache")
        keys, values = _pointers(cache.keys, _FLOAT_P), _pointers(cache.values, _FLOAT_P)
        model = ctypes.byref(self._model)
        work = torch.empty(self._library.ndb_work_floats(model, n, start))
        logits = torch.empty(1, keep, self.vocab)
        failed = self._library.ndb_forward(
            model,
            _pointer(ids, ctypes.POINTER(ctypes.c_int64)),
            n,
            start,
            keys,
            values,
            cache.capacity,
            keep,
            _pointer(logits, _FLOAT_P),
            _pointer(work, _FLOAT_P),
        )
        if failed:
            raise ValueError(f"token ids outside the vocabulary of {self.vocab}, or no room")
        cache.length += n
        return logits
