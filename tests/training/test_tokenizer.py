"""The value tokenizer: digits one by one, punctuation alone, short pieces, language tokens whole.

Trained on real trajectories (a small `ndb data` run), checked over its whole vocabulary, loaded
by `transformers` as vLLM loads it, and read by the constrained decoder's byte vocabulary.
"""

from __future__ import annotations

import string
import unicodedata
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from neural_debugger.model_backend.tokenizer import SPECIAL_TOKENS, check_special_tokens
from neural_debugger.model_backend.vocab import Vocab
from neural_debugger.paths import cruxeval_path
from neural_debugger.protocol.tokens import ALL_SPECIAL_TOKENS
from neural_debugger.training.data import DataSpec, generate_data
from neural_debugger.training.shards import read_shards
from neural_debugger.training.tokenizer import (
    VALUE_MAX_PIECE,
    save_tokenizer,
    tokenizer_kind,
    train_tokenizer,
)

STATE = (
    '<|frame_sep|><|line_sep|>{"word": "\'Hello, wörld!\'", "n": "1024", "xs": "[3.25, -17]"}'
    "<|src_sep|>        total += counts.get(word, 0)\n<|action_sep|><|step_into|>"
)


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = Path(tmp_path_factory.mktemp("tok"))
    crux = cruxeval_path()
    crux_path = str(crux) if crux.exists() else None
    generate_data(DataSpec(programs=60, seed=5, max_states=12), root, crux_path, 1)
    return [record["text"] for record in read_shards(root)]


@pytest.fixture(scope="module")
def value(texts: list[str]) -> Tokenizer:
    return train_tokenizer(texts, 4096, "value")


@pytest.fixture(scope="module")
def bpe(texts: list[str]) -> Tokenizer:
    return train_tokenizer(texts, 4096, "bpe")


def pieces(tokenizer: Tokenizer) -> list[str]:
    """Every ordinary token as text (bytes that are not whole UTF-8 characters replaced)."""
    vocab = Vocab(tokenizer)
    return [b.decode("utf-8", errors="replace") for b in vocab.bytes_of if b is not None]


def is_punctuation(char: str) -> bool:
    return char in string.punctuation or unicodedata.category(char).startswith("P")


def test_digits_are_single_tokens(value: Tokenizer, bpe: Tokenizer) -> None:
    for piece in pieces(value):
        if any(c.isdigit() for c in piece):
            assert len(piece) == 1, piece
    assert value.encode("1024", add_special_tokens=False).tokens == ["1", "0", "2", "4"]
    # the old kind recalls whole numbers: the check above can fail
    assert any(len(p) > 1 and p.strip().isdigit() for p in pieces(bpe))


def test_no_token_spans_a_quote_or_punctuation(value: Tokenizer, bpe: Tokenizer) -> None:
    for piece in pieces(value):
        if any(is_punctuation(c) for c in piece if c != "\ufffd"):
            assert len(piece) == 1, piece
    tokens = value.encode("'a, b'", add_special_tokens=False).tokens
    assert tokens[0] == "'" and tokens[-1] == "'" and "," in tokens
    assert any(len(p) > 1 and any(is_punctuation(c) for c in p) for p in pieces(bpe))


def test_strings_split_into_short_pieces(value: Tokenizer) -> None:
    assert all(len(piece) <= VALUE_MAX_PIECE for piece in pieces(value))
    ids = value.encode("\"'abracadabra_magic'\"", add_special_tokens=False).ids
    assert len(ids) >= 2 + 2 + 3  # quotes alone, then pieces of the word
    vocab = Vocab(value)
    assert vocab.text(ids) == "\"'abracadabra_magic'\""


def test_language_tokens_are_one_id_each(value: Tokenizer) -> None:
    check_special_tokens(value)
    ids = value.encode(STATE, add_special_tokens=False).ids
    for token in ("<|frame_sep|>", "<|line_sep|>", "<|src_sep|>", "<|action_sep|>"):
        assert ids.count(value.token_to_id(token)) == 1
    assert [value.token_to_id(t) for t in SPECIAL_TOKENS] == list(range(len(SPECIAL_TOKENS)))


def test_text_round_trips_through_the_decoder_vocabulary(value: Tokenizer) -> None:
    ids = value.encode(STATE, add_special_tokens=False).ids
    vocab = Vocab(value)
    assert vocab.text(ids) == STATE
    assert value.decode(ids, skip_special_tokens=False) == STATE
    for token in ALL_SPECIAL_TOKENS:
        assert vocab.special_id[token] == value.token_to_id(token)


def test_kinds_are_told_apart_and_unknown_kinds_refused(
    value: Tokenizer, bpe: Tokenizer, texts: list[str]
) -> None:
    assert tokenizer_kind(value) == "value" and tokenizer_kind(bpe) == "bpe"
    with pytest.raises(ValueError, match="unknown tokenizer kind 'words'"):
        train_tokenizer(texts[:10], 512, "words")


def test_transformers_loads_the_saved_tokenizer_unchanged(value: Tokenizer, tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    save_tokenizer(value, tmp_path, 1024)
    hf = transformers.AutoTokenizer.from_pretrained(tmp_path)
    assert hf.encode(STATE, add_special_tokens=False) == value.encode(STATE).ids
    assert hf.pad_token == "<|pad|>" and hf.model_max_length == 1024
    reloaded = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert tokenizer_kind(reloaded) == "value"
