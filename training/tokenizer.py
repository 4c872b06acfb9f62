"""Training the tokenizer: byte-level BPE trained on trajectories, every language token special.

Saved as ``tokenizer.json`` (HF ``tokenizers``) with a ``tokenizer_config.json`` beside it, so
that ``transformers`` and vLLM load it unchanged; the runtime loads it with
:func:`neural_debugger.model_backend.tokenizer.load_tokenizer`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from neural_debugger.model_backend.tokenizer import PAD, SPECIAL_TOKENS
from neural_debugger.protocol.tokens import BEGIN_OF_TEXT, END_OF_TEXT

__all__ = ["PAD", "save_tokenizer", "train_tokenizer"]


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    """A byte-level BPE over ``texts``; the language's tokens are never split or merged."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=2,
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer


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
