"""The whole pipeline on a small scale: data, tokenizer, training, reload, generation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from neural_debugger.evaluation.next_state import load_items, score
from neural_debugger.model_backend.backend import BudgetExceeded, ContextTooLong, DecodeOptions
from neural_debugger.model_backend.generate import greedy_state
from neural_debugger.model_backend.llama import load_pretrained
from neural_debugger.model_backend.local import LocalSession, load_model
from neural_debugger.model_backend.tokenizer import PAD, load_tokenizer
from neural_debugger.paths import cruxeval_path
from neural_debugger.protocol import parse_trajectory
from neural_debugger.protocol.tokens import ALL_SPECIAL_TOKENS
from neural_debugger.training.data import DataSpec, generate_data
from neural_debugger.training.model_card import render
from neural_debugger.training.shards import read_shards
from neural_debugger.training.tokenizer import tokenizer_kind
from neural_debugger.training.train import (
    RunState,
    batch_seed,
    config_by_name,
    pack,
    train,
)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(tmp_path_factory.mktemp("data"))
    crux = cruxeval_path()
    crux_path = str(crux) if crux.exists() else None
    generate_data(DataSpec(programs=120, seed=1, max_states=12), root / "train", crux_path, 2)
    generate_data(DataSpec(programs=20, seed=2, max_states=12), root / "heldout", crux_path, 1)
    return root


def test_data_shards_hold_parseable_trajectories_and_statistics(data: Path) -> None:
    stats = json.loads((data / "train" / "stats.json").read_text())
    assert stats["programs"] > 100
    assert stats["trajectories"] == sum(stats["directions"].values())
    assert stats["directions"]["forward"] > 0 and stats["directions"]["inverse"] > 0
    assert "dropped_cruxeval" in stats and "per_trajectory" in stats
    records = list(read_shards(data / "train"))
    assert len(records) == stats["trajectories"]
    for record in records[:200]:
        trajectory = parse_trajectory(record["text"])
        assert trajectory.complete
        if record["direction"] == "forward":
            assert len(trajectory.states) <= 12
        else:  # closed by climbing to the entry with inv_step_call, one level per step
            assert {a.kind.value for a in trajectory.actions[11:]} <= {"inv_step_call"}


def test_tiny_training_lowers_the_loss_and_the_model_reloads(data: Path, tmp_path: Path) -> None:
    config = config_by_name("tiny", max_steps=120, eval_every=60)
    state = train(config, data / "train", data / "heldout", tmp_path, log=lambda _: None)
    assert state.step == 120
    first, last = state.history[0]["val_loss"], state.history[-1]["val_loss"]
    assert last < first
    # the tokenizer knows every language token as one id; the model reloads from its folder
    tokenizer = load_tokenizer(tmp_path)
    assert tokenizer.get_vocab_size() <= config.vocab_size
    for token in ALL_SPECIAL_TOKENS:
        assert tokenizer.token_to_id(token) is not None
    model = load_pretrained(tmp_path)
    ids = torch.tensor([tokenizer.encode("<|begin_of_text|>").ids])
    assert model(ids).shape[-1] == tokenizer.get_vocab_size()
    # resuming continues from the saved step
    more = config_by_name("tiny", max_steps=130, eval_every=60)
    resumed = train(
        more, data / "train", data / "heldout", tmp_path, resume_from=tmp_path, log=lambda _: None
    )
    assert resumed.step == 130
    # a model folder (weights, no optimizer) starts a new stage that keeps the earlier ones' count
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for file in tmp_path.iterdir():
        if file.is_file() and file.name != "training_state.pt":
            shutil.copy(file, shipped / file.name)
    stage = config_by_name("tiny", max_steps=10, eval_every=10)
    second = train(
        stage, data / "train", data / "heldout", tmp_path / "stage2", resume_from=shipped,
        log=lambda _: None,
    )  # fmt: skip
    earlier = [(s["steps"], s["tokens"]) for s in second.earlier]
    assert earlier == [(130, 130 * more.tokens_per_step)]
    card = render(tmp_path / "stage2", [data, data], None, "a test machine", [])
    assert "- Stage 1: config `tiny`" in card and "(resumed from the weights above)" in card
    assert f"In all: {140 * stage.tokens_per_step:,} tokens seen" in card
    programs = json.loads((data / "train" / "stats.json").read_text())["programs"]
    assert f"- Carried data: {2 * programs:,} programs" in card  # two data folders, added up


def test_each_stage_and_step_draws_its_own_batches() -> None:
    config = config_by_name("tiny")
    fresh = batch_seed(config, RunState())
    resumed = batch_seed(config, RunState(step=130))
    one_stage = batch_seed(config, RunState(earlier=[{"steps": 130}]))
    two_stages = batch_seed(config, RunState(earlier=[{"steps": 130}, {"steps": 10}]))
    assert len({fresh, resumed, one_stage, two_stages}) == 4
    assert batch_seed(config, RunState(earlier=[{"steps": 7}])) == one_stage  # reproducible


def test_a_briefly_trained_model_writes_parseable_states(data: Path, tmp_path: Path) -> None:
    # a 1,024-token window, as the GPU configs': the value tokenizer's code takes more tokens,
    # and the decoder needs room beside it
    config = config_by_name("tiny", max_steps=400, eval_every=400, lr=5e-3, block_size=1024)
    assert config.tokenizer == "value"  # new models take the value tokenizer
    train(config, data / "train", data / "heldout", tmp_path, log=lambda _: None)
    model, tokenizer = load_pretrained(tmp_path), load_tokenizer(tmp_path)
    assert tokenizer_kind(tokenizer) == "value"
    assert json.loads((tmp_path / "run.json").read_text())["config"]["tokenizer"] == "value"
    items = load_items(data / "heldout", 3, 0, 900)
    parsed = [
        score(greedy_state(model, tokenizer, item.prompt, 96), item.target)["parsed"]
        for item in items
    ]
    # an untrained model writes no parseable state; 400 tiny steps already write some
    assert sum(parsed) >= 3, parsed
    # the grammar's constrained decoder reads the value tokenizer's vocabulary: every state it
    # completes parses (no room beside the code, or no end within the budget, is a clear
    # error), and some are right
    loaded = load_model(tmp_path)
    written = []
    for item in items:
        assert item.history is not None and item.next_action is not None
        session = LocalSession(loaded, item.history.code)
        try:
            prediction = session.predict_now(item.history, item.next_action, DecodeOptions())
        except (ContextTooLong, BudgetExceeded):  # no room, or a tiny model rambling
            continue
        written.append(score(prediction.text, item.target))
    assert len(written) >= 3, f"{len(written)} of {len(items)} states completed"
    assert all(result["parsed"] for result in written), written
    assert any(result["event"] for result in written)


def test_packing_in_parallel_keeps_every_document_and_target(data: Path) -> None:
    tokenizer = load_tokenizer(Path(__file__).parents[2] / "models" / "ndb-small")
    texts = [record["text"] for record in read_shards(data / "train")][:300]
    pad = tokenizer.token_to_id(PAD)
    one = pack(texts, tokenizer, 256, 0, pad)
    three = pack(texts, tokenizer, 256, 0, pad, workers=3)
    assert three.documents == one.documents and three.windowed == one.windowed > 0
    assert three.target_tokens == one.target_tokens > 0
    assert three.lost_transitions == one.lost_transitions
    # the same tokens, only the padding of each worker's last row differs
    real = lambda packed: sorted(packed.tokens[packed.tokens != pad].tolist())  # noqa: E731
    assert real(three) == real(one)
    assert three.tokens.dtype == torch.long and three.weights.dtype == torch.float32


def test_a_new_model_can_take_the_shipped_tokenizer(data: Path, tmp_path: Path) -> None:
    shipped = Path(__file__).parents[2] / "models" / "ndb-small"
    config = config_by_name("tiny", max_steps=2, eval_every=2)
    train(
        config, data / "train", data / "heldout", tmp_path, log=lambda _: None,
        tokenizer_from=shipped, workers=2,
    )  # fmt: skip
    assert (tmp_path / "tokenizer.json").read_text() == (shipped / "tokenizer.json").read_text()
    model = load_pretrained(tmp_path)
    assert model.config.hidden_size == config.hidden_size  # a new model, not the shipped one
    assert model.config.vocab_size == load_tokenizer(shipped).get_vocab_size()
    with pytest.raises(FileNotFoundError, match=r"no tokenizer\.json"):
        train(config, data / "train", data / "heldout", tmp_path, tokenizer_from=tmp_path / "x")
