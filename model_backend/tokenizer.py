"""Loading the model's tokenizer: every language token must be one special token.

A model folder holds ``tokenizer.json`` (HF ``tokenizers``) beside its weights; the runtime loads
and checks it here, and training (which trains and saves tokenizers) imports these definitions, so
data flows one way. Special tokens take the first ids, in the order of
:data:`neural_debugger.protocol.tokens.ALL_SPECIAL_TOKENS`, followed by ``<|pad|>``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tokenizers import Tokenizer

from neural_debugger.protocol.tokens import ALL_SPECIAL_TOKENS

PAD = "<|pad|>"
SPECIAL_TOKENS: tuple[str, ...] = (*ALL_SPECIAL_TOKENS, PAD)


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
