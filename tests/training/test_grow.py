"""Growing a trained model into a larger shape: the same function first, then training moves it."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from neural_debugger.evaluation import stage_check
from neural_debugger.model_backend.llama import LlamaForCausalLM, ModelConfig, load_pretrained
from neural_debugger.model_backend.local import LocalEngine, load_model
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import load_program
from neural_debugger.training import gpu_stage
from neural_debugger.training.__main__ import main as ndb_training
from neural_debugger.training.grow import (
    Shape,
    grow,
    grow_folder,
    largest_logit_difference,
    new_layer_places,
)
from neural_debugger.training.model_card import render
from neural_debugger.training.train import CONFIGS, config_by_name, train

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "ndb-small"
PROGRAM = load_program(ROOT / "examples" / "bubble_sort.py", "bubble_sort([3, 1, 2])")
STEP_INTO = Action(kind=ActionKind.STEP_INTO)
STEP_OVER = Action(kind=ActionKind.STEP_OVER)


def trained_looking(config: ModelConfig, seed: int = 0) -> LlamaForCausalLM:
    """A random model whose norms are not all ones, as a trained model's are not."""
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight"):
                param.copy_(torch.rand_like(param) * 1.5 + 0.25)
            elif name.endswith(("o_proj.weight", "down_proj.weight")):
                param.normal_(std=0.05)  # larger than init, so every layer matters
            elif name.endswith("embed_tokens.weight"):
                param.normal_(std=0.5)  # logits of a few units, as a trained model's
    return model.eval()


SMALL = ModelConfig(
    vocab_size=300,
    hidden_size=64,
    intermediate_size=160,
    num_hidden_layers=3,
    num_attention_heads=2,
    num_key_value_heads=2,
    max_position_embeddings=128,
)


@pytest.mark.parametrize(
    "target",
    [
        Shape(hidden=96, layers=3, heads=3, ffn=160),  # wider (one more head)
        Shape(hidden=64, layers=5, heads=2, ffn=160),  # deeper
        Shape(hidden=64, layers=3, heads=2, ffn=256),  # a wider MLP
        Shape(hidden=128, layers=6, heads=4, ffn=352),  # all of it
    ],
    ids=["wider", "deeper", "mlp", "all"],
)
def test_a_grown_model_computes_what_it_grew_from(target: Shape) -> None:
    model = trained_looking(SMALL)
    grown = grow(model, target, seed=3)
    assert Shape.of(grown.config) == target
    assert grown.num_parameters() > model.num_parameters()
    ids = torch.randint(0, SMALL.vocab_size, (2, 100), generator=torch.Generator().manual_seed(1))
    scale = model(ids).abs().max().item()
    assert scale > 1.0  # logits with something to lose
    assert largest_logit_difference(model, grown, ids) < 1e-5 * scale
    # the KV-cached decoding path agrees too: one token at a time after a prompt
    cache = grown.new_cache()
    grown(ids[:1, :60], cache=cache)
    stepped = grown(ids[:1, 60:61], cache=cache)[0, -1]
    assert torch.allclose(stepped, model(ids[:1, :61])[0, -1], atol=1e-5 * scale)


def test_new_layers_are_spread_through_the_stack() -> None:
    # old index, or -1 - index for a zero-output copy of that old layer
    assert new_layer_places(6, 8) == [0, 1, -2, 2, 3, -4, 4, 5]
    assert new_layer_places(6, 7) == [0, 1, 2, -3, 3, 4, 5]
    assert new_layer_places(3, 3) == [0, 1, 2]
    assert sorted(p for p in new_layer_places(2, 6) if p < 0) == [-2, -2, -1, -1]


def test_shapes_growth_cannot_keep_are_refused() -> None:
    model = trained_looking(SMALL)
    with pytest.raises(ValueError, match=r"smaller shape.*layers"):
        grow(model, Shape(hidden=64, layers=2, heads=2, ffn=160))
    with pytest.raises(ValueError, match="heads must stay 32 wide"):
        grow(model, Shape(hidden=128, layers=3, heads=2, ffn=160))
    with pytest.raises(ValueError, match="not a multiple"):
        grow(model, Shape(hidden=100, layers=3, heads=3, ffn=160))


def test_training_moves_the_parts_growth_added() -> None:
    model = trained_looking(SMALL)
    grown = grow(model, Shape(hidden=96, layers=4, heads=3, ffn=192), seed=0).train()
    ids = torch.randint(0, SMALL.vocab_size, (2, 64), generator=torch.Generator().manual_seed(2))
    optimizer = torch.optim.AdamW(grown.parameters(), lr=1e-3)
    for _ in range(2):  # the zero writers get gradient first, then what reads them
        loss = torch.nn.functional.cross_entropy(
            grown(ids[:, :-1]).flatten(0, 1), ids[:, 1:].flatten()
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    new_layer = grown.model.layers[2]  # 3 -> 4 layers: the copy after the 2nd old layer
    assert new_layer.self_attn.o_proj.weight.abs().sum() > 0
    assert new_layer.mlp.down_proj.weight.abs().sum() > 0
    assert grown.model.embed_tokens.weight[:, SMALL.hidden_size :].abs().sum() > 0
    assert grown.model.layers[0].self_attn.o_proj.weight[:, SMALL.hidden_size :].abs().sum() > 0


async def test_the_shipped_model_grown_wider_and_deeper_predicts_the_same_states(
    tmp_path: Path,
) -> None:
    shipped = Shape.of(ModelConfig.from_hf(json.loads((SHIPPED / "config.json").read_text())))
    target = Shape(shipped.hidden + 64, shipped.layers + 2, shipped.heads + 1, shipped.ffn + 128)
    record = grow_folder(SHIPPED, tmp_path / "grown", target)
    assert record["parameters_from"] == 20_651_456  # the shipped model: gpu-21m
    assert record["parameters_to"] > record["parameters_from"]
    assert record["largest_logit_difference"] < 1e-3
    run = json.loads((tmp_path / "grown" / "run.json").read_text())
    assert run["grown"]["to"] == {"hidden": 512, "layers": 10, "heads": 8, "ffn": 1280}
    # the engine a debug session uses (float16 weights; native or torch pass) loads both
    # folders and walks the same stops under the grammar
    walks = []
    for folder in (SHIPPED, tmp_path / "grown"):
        engine = LocalEngine(folder)
        session = await DebugSession.open(PROGRAM, engine)
        for i in range(8):
            await session.step(STEP_INTO if i % 3 else STEP_OVER)
        walks.append([stop.state for stop in session.stops])
    assert engine.loaded.model.config.hidden_size == 512
    assert walks[0] == walks[1]


@pytest.fixture(scope="module")
def tiny_model(stage_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model folder as a stage leaves one: weights, tokenizer, run.json, no optimizer."""
    run = Path(tmp_path_factory.mktemp("tiny-run"))
    train(
        config_by_name("tiny", max_steps=20),
        stage_data / "train",
        stage_data / "heldout",
        run,
        log=print,
    )
    folder = Path(tmp_path_factory.mktemp("tiny-model"))
    for file in run.iterdir():
        if file.is_file() and file.name != "training_state.pt":
            shutil.copy(file, folder / file.name)
    return folder


def test_a_stage_grows_the_resumed_model_and_records_it(
    stage_data: Path, tiny_model: Path, tmp_path: Path
) -> None:
    said: list[str] = []
    config = config_by_name("tiny-wide", max_steps=6, eval_every=6)
    state = train(
        config, stage_data / "train", stage_data / "heldout", tmp_path, resume_from=tiny_model,
        grow=True, log=said.append,
    )  # fmt: skip
    grown_line = next(line for line in said if line.startswith("grown:"))
    assert "largest logit difference on a validation row" in grown_line
    assert state.grown["largest_logit_difference"] < 1e-4
    assert state.grown["from"]["hidden"] == 64 and state.grown["to"]["hidden"] == 96
    model = load_pretrained(tmp_path)
    assert Shape.of(model.config) == Shape.of(config)
    # the new layer (tiny's 2 -> 3: a copy after the first) has moved off zero
    assert model.model.layers[1].self_attn.o_proj.weight.float().abs().sum() > 0
    # the record and the card say so, and a later stage keeps it among the earlier ones
    assert json.loads((tmp_path / "run.json").read_text())["state"]["grown"]["seed"] == 0
    card = render(tmp_path, [stage_data], None, "a test machine", [])
    assert "- Stage 2: config `tiny-wide`" in card
    assert f"grown from {state.grown['parameters_from']:,} to" in card


def test_growing_needs_a_model_folder(
    stage_data: Path, tiny_model: Path, tmp_path: Path, capsys
) -> None:
    argv = ["train", "--config", "tiny-wide", "--data", str(stage_data), "--out", str(tmp_path)]
    assert ndb_training([*argv, "--grow"]) == 2
    assert "--grow needs --resume" in capsys.readouterr().out
    config = config_by_name("tiny-wide", max_steps=2)
    with pytest.raises(ValueError, match="growing needs weights"):
        train(config, stage_data / "train", stage_data / "heldout", tmp_path, grow=True)
    shutil.copytree(tiny_model, tmp_path / "run")
    (tmp_path / "run" / "training_state.pt").write_bytes(b"")
    with pytest.raises(ValueError, match="is a run folder"):
        train(
            config, stage_data / "train", stage_data / "heldout", tmp_path / "out",
            resume_from=tmp_path / "run", grow=True,
        )  # fmt: skip
    grow_folder(tiny_model, tmp_path / "wide", Shape.of(CONFIGS["tiny-wide"]))
    with pytest.raises(ValueError, match="smaller shape"):
        train(
            config_by_name("tiny", max_steps=1), stage_data / "train", stage_data / "heldout",
            tmp_path / "out", resume_from=tmp_path / "wide", grow=True,
        )  # fmt: skip


def test_a_grown_stage_runs_end_to_end(
    stage_data: Path,
    tiny_model: Path,
    carried_kit: Callable[[Path], Path],
    run_stage: Callable[..., subprocess.CompletedProcess[str]],
    tmp_path: Path,
) -> None:
    kit = carried_kit(tmp_path / "kit")
    shutil.copytree(tiny_model, kit / "tiny")  # weights travel in the kit
    argv = ["--root", str(ROOT), "--kit", str(kit), "prepare", "--config", "tiny-wide"]
    argv += ["--resume", str(kit / "tiny"), "--grow", "--minutes", "0.1", "--stage-seconds", "200"]
    assert gpu_stage.main(argv) == 0
    settings = gpu_stage.read_stage_env(kit / "stage.env")
    assert settings["GROW"] == "1" and settings["CONFIG"] == "tiny-wide"

    out, work = tmp_path / "out", tmp_path / "work"
    run = run_stage(kit, out, work)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "train: config tiny-wide from " in run.stdout and ", grown for" in run.stdout
    assert "grown: " in run.stdout
    code = stage_check.main(
        [str(out), "--kit", str(kit), "--data", str(stage_data / "heldout"), "--out",
         str(tmp_path / "check"), "--per-action", "1"]
    )  # fmt: skip
    assert code == 0
    checked = load_model(tmp_path / "check" / "model")
    assert checked.model.config.hidden_size == 96
    result = json.loads((tmp_path / "check" / "stage_check.json").read_text())
    assert result["baseline"] is not None  # measured against the model it grew from


def test_a_stage_refuses_to_grow_into_a_smaller_or_unknown_shape(tmp_path: Path, capsys) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "data.tar.xz").write_bytes(b"")
    root = ["--root", str(ROOT), "--kit", str(kit), "prepare"]
    assert gpu_stage.main([*root, "--config", "small", "--resume", str(SHIPPED), "--grow"]) == 2
    assert "cannot grow into small" in capsys.readouterr().out
    assert gpu_stage.main([*root, "--config", "gpu-21m", "--grow"]) == 2
    assert "--grow needs --resume" in capsys.readouterr().out
    assert gpu_stage.main([*root, "--config", "gpu-21m", "--resume", str(SHIPPED), "--grow"]) == 0
    said = capsys.readouterr().out
    assert "grows into gpu-21m" in said and "coming back: 3 weight shards" in said
    assert gpu_stage.read_stage_env(kit / "stage.env")["GROW"] == "1"
