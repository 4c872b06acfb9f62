"""Grow a trained model into a wider and deeper shape that computes the same function.

Why: a larger model trained from scratch spends most of a lent GPU session catching up with the
shipped one before it can beat it. Grown from the shipped weights instead, it starts exactly
where the shipped model is (the same logits, up to float rounding) and every minute of a stage
goes into what the extra width and depth can learn.

How each part grows, so that the new parts add nothing until training moves them:

* **hidden size** ``d -> D``: the new residual dimensions start at zero and stay zero, because
  everything that writes into the residual stream (token embeddings, ``o_proj``, ``down_proj``)
  gets zero rows for them. The RMS norms then divide by a mean over ``D`` entries of which only
  ``d`` are non-zero, so their weights are scaled by ``sqrt(d / D)`` and their epsilon by
  ``d / D``; that is exact, not approximate. What reads the residual (``q/k/v_proj``,
  ``gate/up_proj``) gets small random columns for the new dimensions: they read zeros now,
  and carry gradient into the zero writers once training starts.
* **attention heads** (64 wide, as before): a new head's ``q/k/v`` rows are small random
  values, its ``o_proj`` columns zero.
* **MLP width**: new ``gate/up`` rows random, the matching ``down_proj`` columns zero.
* **layers**: a new layer is a copy of the (grown) layer before it with ``o_proj`` and
  ``down_proj`` zeroed, so its output adds nothing to the residual; new layers are spread
  evenly through the stack.

The tokenizer, vocabulary, window and rotary embedding stay as they are.

Usage: ``python -m neural_debugger.training.grow SOURCE OUT --config gpu-21m`` writes a model
folder (float32 by default, so the copy is exact) and prints the largest logit difference on a
few hundred tokens; ``ndb train --resume SOURCE --config gpu-21m --grow`` grows in memory at
the start of a stage (``make gpu-stage STAGE_GROW=1``).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from neural_debugger.model_backend.llama import (
    LlamaForCausalLM,
    ModelConfig,
    load_pretrained,
    save_pretrained,
)

if TYPE_CHECKING:  # train.py grows models itself (ndb train --grow): no import cycle at run time
    from .train import TrainConfig

INIT_STD = 0.02  # the scale new reading weights are drawn at (the models' own init scale)
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


@dataclass(frozen=True)
class Shape:
    """The four sizes growth changes."""

    hidden: int
    layers: int
    heads: int
    ffn: int

    @classmethod
    def of(cls, config: ModelConfig | TrainConfig) -> Shape:
        """The shape of a model's config or of a training config (they name the sizes alike)."""
        return cls(
            config.hidden_size,
            config.num_hidden_layers,
            config.num_attention_heads,
            config.intermediate_size,
        )

    def __str__(self) -> str:
        return f"hidden {self.hidden}, {self.layers} layers, {self.heads} heads, MLP {self.ffn}"


def check_growth(source: ModelConfig, target: Shape) -> None:
    """Refuse a target the source cannot grow into without changing what it computes."""
    have = Shape.of(source)
    if source.num_key_value_heads != source.num_attention_heads:
        raise ValueError("growing a model with grouped key/value heads is not supported")
    smaller = [
        name
        for name in ("hidden", "layers", "heads", "ffn")
        if getattr(target, name) < getattr(have, name)
    ]
    if smaller:
        raise ValueError(
            f"cannot grow ({have}) into a smaller shape ({target}): {', '.join(smaller)}"
        )
    if target.hidden % target.heads:
        raise ValueError(f"hidden size {target.hidden} is not a multiple of {target.heads} heads")
    if target.hidden // target.heads != source.head_dim:
        raise ValueError(
            f"heads must stay {source.head_dim} wide (rotary embedding and attention scale); "
            f"({target}) has heads {target.hidden // target.heads} wide"
        )


def new_layer_places(old: int, new: int) -> list[int]:
    """For each layer of the grown stack, the old layer it comes from and whether it is new:
    encoded as the old index, or ``-1 - index`` for a zero-output copy of old layer ``index``.
    New layers are spread evenly (6 -> 8: after the 2nd and the 4th old layer)."""
    extra = new - old
    after = [-(-(i + 1) * old // (extra + 1)) - 1 for i in range(extra)]  # ceil, from 0
    places: list[int] = []
    for index in range(old):
        places.append(index)
        places += [-1 - index] * after.count(index)
    return places


def _block(old: torch.Tensor, size: tuple[int, ...], fill: torch.Tensor) -> torch.Tensor:
    """``fill`` (of ``size``) with ``old`` in its leading corner."""
    out = fill.clone()
    out[tuple(slice(0, n) for n in old.shape)] = old
    return out


def grow(model: LlamaForCausalLM, target: Shape, seed: int = 0) -> LlamaForCausalLM:
    """A new float32 model of ``target``'s shape computing what ``model`` computes."""
    source = model.config
    check_growth(source, target)
    ratio = source.hidden_size / target.hidden
    config = replace(
        source,
        hidden_size=target.hidden,
        num_hidden_layers=target.layers,
        num_attention_heads=target.heads,
        num_key_value_heads=target.heads,
        intermediate_size=target.ffn,
        rms_norm_eps=source.rms_norm_eps * ratio,
    )
    generator = torch.Generator().manual_seed(seed)

    def reading(old: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
        return _block(old, size, torch.randn(size, generator=generator) * INIT_STD)

    def writing(old: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
        return _block(old, size, torch.zeros(size))

    def norm(old: torch.Tensor) -> torch.Tensor:
        scale = math.sqrt(ratio)
        return _block(
            old * scale, (target.hidden,), torch.full((target.hidden,), old.mean() * scale)
        )

    old = {name: tensor.detach().float().cpu() for name, tensor in model.state_dict().items()}
    D, F, attention = target.hidden, target.ffn, target.heads * source.head_dim
    grown_layers: list[dict[str, torch.Tensor]] = []
    for index in range(source.num_hidden_layers):
        prefix = f"model.layers.{index}."
        grown_layers.append(
            {
                "input_layernorm.weight": norm(old[prefix + "input_layernorm.weight"]),
                "self_attn.q_proj.weight": reading(
                    old[prefix + "self_attn.q_proj.weight"], (attention, D)
                ),
                "self_attn.k_proj.weight": reading(
                    old[prefix + "self_attn.k_proj.weight"], (attention, D)
                ),
                "self_attn.v_proj.weight": reading(
                    old[prefix + "self_attn.v_proj.weight"], (attention, D)
                ),
                "self_attn.o_proj.weight": writing(
                    old[prefix + "self_attn.o_proj.weight"], (D, attention)
                ),
                "post_attention_layernorm.weight": norm(
                    old[prefix + "post_attention_layernorm.weight"]
                ),
                "mlp.gate_proj.weight": reading(old[prefix + "mlp.gate_proj.weight"], (F, D)),
                "mlp.up_proj.weight": reading(old[prefix + "mlp.up_proj.weight"], (F, D)),
                "mlp.down_proj.weight": writing(old[prefix + "mlp.down_proj.weight"], (D, F)),
            }
        )
    state: dict[str, torch.Tensor] = {
        "model.embed_tokens.weight": writing(
            old["model.embed_tokens.weight"], (source.vocab_size, D)
        ),
        "model.norm.weight": norm(old["model.norm.weight"]),
    }
    if not source.tie_word_embeddings:
        state["lm_head.weight"] = reading(old["lm_head.weight"], (source.vocab_size, D))
    for new_index, place in enumerate(new_layer_places(source.num_hidden_layers, target.layers)):
        layer = dict(grown_layers[place if place >= 0 else -1 - place])
        if place < 0:  # a copy that adds nothing to the residual until trained
            layer["self_attn.o_proj.weight"] = torch.zeros(D, attention)
            layer["mlp.down_proj.weight"] = torch.zeros(D, F)
        state |= {f"model.layers.{new_index}.{k}": v.clone() for k, v in layer.items()}
    grown = LlamaForCausalLM(config)
    missing, unexpected = grown.load_state_dict(state, strict=False)
    left = [k for k in missing if not (config.tie_word_embeddings and k == "lm_head.weight")]
    if left or unexpected:  # a mismatch here is a bug in this module, never the user's input
        raise RuntimeError(f"growth left {left[:3]} unset and {unexpected[:3]} unused")
    return grown.eval()


@torch.no_grad()
def largest_logit_difference(a: LlamaForCausalLM, b: LlamaForCausalLM, ids: torch.Tensor) -> float:
    """How far two models' logits are apart on ``ids`` (float32, one pass each)."""
    return (a.float()(ids) - b.float()(ids)).abs().max().item()


def growth_record(
    before: LlamaForCausalLM, after: LlamaForCausalLM, seed: int, ids: torch.Tensor
) -> dict[str, object]:
    """What a run's record says of a growth (model card, later stages' records), with how far
    the two models' logits are apart on ``ids`` (float rounding only)."""
    return {
        "from": asdict(Shape.of(before.config)),
        "to": asdict(Shape.of(after.config)),
        "parameters_from": before.num_parameters(),
        "parameters_to": after.num_parameters(),
        "seed": seed,
        "largest_logit_difference": largest_logit_difference(before, after, ids),
    }


def grow_folder(
    source: Path, out: Path, target: Shape, seed: int = 0, dtype: str = "float32"
) -> dict[str, object]:
    """Write ``source`` grown to ``target`` into the model folder ``out`` (its tokenizer, and
    its ``run.json`` with the growth recorded); returns the growth record with the largest
    logit difference on up to 256 tokens."""
    if out.resolve() == source.resolve():
        raise ValueError(f"{out} is the source folder; write the grown model elsewhere")
    model = load_pretrained(source)
    grown = grow(model, target, seed)
    out.mkdir(parents=True, exist_ok=True)
    for name in _TOKENIZER_FILES:  # before the weights: config.json records the tokenizer's print
        if (source / name).exists():
            shutil.copy(source / name, out / name)
    save_pretrained(grown, out, dtype=getattr(torch, dtype))
    ids = torch.randint(
        0,
        model.config.vocab_size,
        (1, min(256, model.config.max_position_embeddings)),
        generator=torch.Generator().manual_seed(seed),
    )
    record = growth_record(model, load_pretrained(out), seed, ids)  # as saved, dtype and all
    run_path = source / "run.json"
    if run_path.exists():
        run = json.loads(run_path.read_text())
        run["grown"] = {**record, "from_folder": str(source)}
        (out / "run.json").write_text(json.dumps(run, indent=2) + "\n")
    return record


def main(argv: list[str] | None = None) -> int:
    from .train import CONFIGS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the model folder to grow")
    parser.add_argument("out", type=Path, help="folder for the grown model")
    parser.add_argument(
        "--config", required=True, help=f"the shape to grow into: {', '.join(CONFIGS)}"
    )
    parser.add_argument("--seed", type=int, default=0, help="draws the new reading weights")
    parser.add_argument(
        "--dtype",
        choices=["float32", "bfloat16"],
        default="float32",
        help="float32 keeps the function exact; bfloat16 rounds the scaled norms",
    )
    args = parser.parse_args(argv)
    if args.config not in CONFIGS:
        parser.error(f"unknown config {args.config!r}; choose from {', '.join(CONFIGS)}")
    try:
        record = grow_folder(
            args.source, args.out, Shape.of(CONFIGS[args.config]), args.seed, args.dtype
        )
    except (ValueError, FileNotFoundError) as err:
        parser.error(str(err))
    print(
        f"grown: {record['parameters_from']:,} -> {record['parameters_to']:,} parameters "
        f"({Shape(**record['to'])}) in {args.out}; largest logit difference "
        f"{record['largest_logit_difference']:.2e}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
