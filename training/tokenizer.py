"""The tokenizer: byte-level BPE trained on trajectories, every language token a special token.

Saved as ``tokenizer.json`` (HF ``tokenizers``) with a ``tokenizer_config.json`` beside it, so
that ``transformers`` and vLLM load it unchanged. Special tokens take the first ids, in the order
of :data:`neural_debugger.protocol.tokens.ALL_SPECIAL_TOKENS`, followed by ``<|pad|>``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from neural_debugger.protocol.tokens import ALL_SPECIAL_TOKENS, BEGIN_OF_TEXT, END_OF_TEXT

PAD = "<|pad|>"
SPECIAL_TOKENS: tuple[str, ...] = (*ALL_SPECIAL_TOKENS, PAD)


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


def load_tokenizer(folder: Path) -> Tokenizer:
    """Load ``tokenizer.json`` and check that it knows every token of the language as one id."""
    path = folder / "tokenizer.json"
    if not path.exists():
        raise FileNotFoundError(f"no tokenizer.json in {folder}")
    tokenizer = Tokenizer.from_file(str(path))
    check_special_tokens(tokenizer)
    return tokenizer


def check_special_tokens(tokenizer: Tokenizer) -> None:
    """Raise if a language token is missing or is not a single special token."""
    for token in SPECIAL_TOKENS:
        ids = tokenizer.encode(token, add_special_tokens=False).ids
        if len(ids) != 1 or tokenizer.id_to_token(ids[0]) != token:
            raise ValueError(f"the tokenizer does not know {token} as one token (got ids {ids})")


def tokenizer_fingerprint(path: Path) -> str:
    """A hash of a ``tokenizer.json``'s vocabulary, merges and special tokens (not its layout).

    ``save_pretrained`` records it in ``config.json``, so a loader can tell that a tokenizer and
    weights were trained together even when their vocabulary sizes agree.
    """
    data = json.loads(path.read_text())
    kept = {"model": data.get("model"), "added_tokens": data.get("added_tokens")}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()
