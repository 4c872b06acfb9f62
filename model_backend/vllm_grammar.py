"""The debugger grammar inside a vLLM server: a logits processor (vLLM's v1 plug-in interface).

Loaded into the server with ``--logits-processors
neural_debugger.model_backend.vllm_grammar:GrammarLogitsProcessor`` (``ndb serve-model`` adds it;
the project must be installed in vLLM's environment, ``make vllm-env`` does that). A request that
carries the grammar arguments (:mod:`.grammar_request`, in ``vllm_xargs``) is decoded under the
same :class:`.grammar.StateWriter` and the same rule (:func:`.choosing.shortlist`) as the
embedded engine: at each step the processor replays the tokens the request has written since the
last step into its writer, keeps only the shortlisted tokens (a forced token alone, the listed
ones, or the best ``wanted`` the grammar accepts) and masks the rest, so vLLM's greedy choice or
its draw takes one of them. Once the state is complete it allows only the end-of-text token,
which ends the request. Requests without the arguments are left alone.

So a whole state costs one request, which vLLM batches with every other session's. Log-probs
vLLM returns are ``raw_logprobs`` by default (computed before any logits processor): the model's
unrestricted log-probabilities, what the embedded engine reports too.

Nothing here may raise inside the engine (that would stop the server for every session): a
request whose tokens stop fitting the grammar (which the rule itself never causes) is ended at
once, and the client reports the incomplete text.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from vllm import SamplingParams
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

from neural_debugger.protocol.tokens import END_OF_TEXT

from .choosing import shortlist
from .grammar import FORWARD_KINDS, INVERSE_KINDS, SourceLines, StateWriter
from .grammar_request import GrammarRequest
from .tokenizer import load_tokenizer
from .vocab import Vocab

if TYPE_CHECKING:
    from vllm.config import VllmConfig

LOG = logging.getLogger(__name__)
KEPT_PROGRAMS = 64  # programs whose lines, names and flow stay prepared between requests


@dataclass
class _Running:
    """One request decoding under the grammar: its writer and the tokens replayed into it."""

    writer: StateWriter
    written: list[int]  # vLLM's live list of the request's output tokens
    wanted: int
    replayed: int = 0
    broken: bool = False


class GrammarLogitsProcessor(LogitsProcessor):  # type: ignore[misc]
    """The debugger grammar for every request of the batch that asks for it."""

    @classmethod
    def validate_params(cls, sampling_params: SamplingParams) -> None:
        """Reject unreadable grammar arguments with a 400 answer, before the engine sees them."""
        GrammarRequest.from_extra_args(sampling_params.extra_args)

    def __init__(self, vllm_config: VllmConfig, device: torch.device, is_pin_memory: bool) -> None:
        folder = Path(vllm_config.model_config.tokenizer)
        self.vocab = Vocab(load_tokenizer(folder))
        self.end = self.vocab.special_id[END_OF_TEXT]
        self.rows: dict[int, _Running] = {}  # batch index -> request
        self._programs: OrderedDict[str, SourceLines] = OrderedDict()

    def is_argmax_invariant(self) -> bool:
        return False  # it decides which tokens greedy decoding may take

    def _source(self, code: str) -> SourceLines:
        source = self._programs.get(code)
        if source is None:
            source = SourceLines(code.split("\n"), self.vocab)
            self._programs[code] = source
            if len(self._programs) > KEPT_PROGRAMS:
                self._programs.popitem(last=False)
        else:
            self._programs.move_to_end(code)
        return source

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if batch_update is None:
            return
        for index in batch_update.removed:
            self.rows.pop(index, None)
        for index, params, _, output in batch_update.added:
            self.rows.pop(index, None)
            try:
                request = GrammarRequest.from_extra_args(params.extra_args)
            except ValueError:
                request = None  # validate_params refused it already
            if request is None:
                continue
            kinds = INVERSE_KINDS if request.inverse else FORWARD_KINDS
            writer = StateWriter(self.vocab, self._source(request.code), kinds, request.expected)
            self.rows[index] = _Running(writer, output, request.wanted)
        for a, b, direction in batch_update.moved:
            first, second = self.rows.pop(a, None), self.rows.pop(b, None)
            if first is not None:
                self.rows[b] = first
            if second is not None and direction == MoveDirectionality.SWAP:
                self.rows[a] = second

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        for index, running in self.rows.items():
            if index >= logits.shape[0]:
                continue
            row = logits[index]
            keep = self._keep(running, row)
            masked = torch.full_like(row, float("-inf"))
            masked[keep] = row[keep]
            logits[index] = masked
        return logits

    def _keep(self, running: _Running, row: torch.Tensor) -> torch.Tensor:
        """The token ids this request may take next."""
        writer = running.writer
        try:
            while running.replayed < len(running.written) and not running.broken:
                token = running.written[running.replayed]
                if token < 0:  # a placeholder for a token still being sampled
                    break
                if writer.done or not 0 <= token < self.vocab.size:
                    running.broken = True
                    break
                writer.advance(token)
                running.replayed += 1
            if running.broken or writer.done:
                return torch.tensor([self.end], device=row.device)
            return shortlist(row, writer, running.wanted)
        except Exception as err:  # never stop the engine: end this request alone
            LOG.warning("ending a request that left the debugger grammar: %s", err)
            running.broken = True
            return torch.tensor([self.end], device=row.device)
