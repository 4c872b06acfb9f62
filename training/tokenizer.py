"""Training the tokenizer: byte-level BPE trained on trajectories, every language token special.

Two kinds (``ndb train --tokenizer-kind``):

* ``value`` (the default for new models): digits are single tokens and every punctuation
  character (quotes, brackets, commas, colons, dots, ...) is a token of its own, so no token
  spans a quote or punctuation; the other pieces (words, runs of spaces) are at most
  :data:`VALUE_MAX_PIECE` characters. A value such as ``'abc123'`` or ``1024`` is then spelled
  from short pieces, so the model composes values instead of recalling them whole.
* ``bpe``: the original byte-level BPE (the GPT-2 pre-tokenizer regex, unbounded merges), the
  tokenizer of the shipped model ``models/ndb-small``, kept for that model's later stages and
  for the ablation (``python -m neural_debugger.evaluation.tokenizer_ablation``).

Both are byte-level (the ``ByteLevel`` pre-tokenizer maps bytes to printable characters last),
so :class:`neural_debugger.model_backend.vocab.Vocab` reads either as bytes and the constrained
decoder works unchanged. Saved as ``tokenizer.json`` (HF ``tokenizers``) with a
``tokenizer_config.json`` beside it, so that ``transformers`` and vLLM load it unchanged; the
runtime loads it with :func:`neural_debugger.model_backend.tokenizer.load_tokenizer`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from neural_debugger.model_backend.tokenizer import PAD, SPECIAL_TOKENS
from neural_debugger.protocol.tokens import BEGIN_OF_TEXT, END_OF_TEXT

__all__ = [
    "DEFAULT_KIND",
    "KINDS",
    "PAD",
    "VALUE_MAX_PIECE",
    "save_tokenizer",
    "tokenizer_kind",
    "train_tokenizer",
]

KINDS = ("value", "bpe")
DEFAULT_KIND = "value"
# The longest piece (in byte-level characters, a leading space included) the value tokenizer
# merges: long enough for indentation and short keywords, short enough that string contents
# are spelled, not recalled.
VALUE_MAX_PIECE = 6


def _pre_tokenizer(kind: str) -> pre_tokenizers.PreTokenizer:
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if kind == "bpe":
        return byte_level
    if kind == "value":
        return pre_tokenizers.Sequence(
            [
                pre_tokenizers.Punctuation(behavior="isolated"),
                pre_tokenizers.Digits(individual_digits=True),
                byte_level,
            ]
        )
    raise ValueError(f"unknown tokenizer kind {kind!r}; choose from {', '.join(KINDS)}")


def train_tokenizer(texts: Iterable[str], vocab_size: int, kind: str = "bpe") -> Tokenizer:
    """A byte-level BPE of ``kind`` over ``texts``; the language's tokens are never split or
    merged. ``bpe`` stays the default here: callers that need the new kind name it."""
    pre_tokenizer = _pre_tokenizer(kind)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=2,
        show_progress=False,
        max_token_length=VALUE_MAX_PIECE if kind == "value" else None,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer


def tokenizer_kind(tokenizer: Tokenizer) -> str:
    """``value`` or ``bpe``, read from a tokenizer's pre-tokenizer (what a run records)."""
    pre = json.loads(tokenizer.to_str()).get("pre_tokenizer") or {}
    return "value" if pre.get("type") == "Sequence" else "bpe"


def save_tokenizer(tokenizer: Tokenizer, folder: Path, model_max_length: int) -> None:
    """Write ``tokenizer.json`` and the ``tokenizer_config.json`` that HF loaders read."""
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": BEGIN_OF_TEXT,
        "eos_token": END_OF_TEXT,
        "pad_token": PAD,
        "model_max_length": model_max_length,
        "add_bos_token": False,
        "add_eos_token": False,
        "clean_up_tokenization_spaces": False,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
