"""The embedded engine: the model in this process, with torch, on CPU (or a GPU when present).

Each debug session keeps a KV cache and the token ids it holds. A prediction first brings the
cache to the new prompt by keeping the longest common prefix (a step forward keeps everything; a
step back or an edited value keeps everything before the change) and feeding only the rest, so a
step costs the new action and state tokens, never a re-encoding of the code and history. Then one
state is decoded under the grammar of :mod:`.grammar`: forced tokens are fed together with the next
chosen one, so they cost no decoding step, and each forward pass also checks a few drafted tokens
(:mod:`.draft`): where the model chooses the drafted token, the next choice needs no forward pass
of its own. Drafts change the cost, never the tokens chosen.

When a long session outgrows the model's window, :class:`.prompt.PromptBuilder` drops the
oldest states in one jump that leaves room for many more steps, so re-encoding happens rarely.
"""

from __future__ import annotations

import functools
import json
import os
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import anyio
import torch

from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, StateKind, standalone
from neural_debugger.tracer.program import Program

from .backend import (
    BackendError,
    DecodeOptions,
    History,
    ModelFolderError,
    Prediction,
    PredictionError,
    budget_exceeded,
    majority,
    written_prediction,
)
from .choosing import choose
from .decoding_llama import DecodingLlama
from .draft import DRAFT_TOKENS, Drafter
from .flow import Expected
from .forward_check import ForwardScorer, forward_view
from .grammar import FORWARD_KINDS, INVERSE_KINDS, SourceLines, StateWriter
from .llama import TOKENIZER_FINGERPRINT, LlamaForCausalLM, load_pretrained
from .native_step import STEP_ENV, NativeStep, step_setting, unavailable_reason
from .prompt import PromptBuilder, answer_budget
from .quantize import WEIGHT_NAMES, quantize_setting, quantize_weights, resolve_setting
from .tokenizer import load_tokenizer, tokenizer_fingerprint
from .vocab import Vocab

THREADS_ENV = "NDB_THREADS"


def decode_threads() -> int:
    """Torch threads a prediction runs on: ``$NDB_THREADS``, else one.

    Why one: a forward pass of a model this small is a few hundred tiny operations, and each
    spread over several threads pays a fork and a join; on a machine whose cores are busy with
    anything else (an editor, a language server, other processes) every join waits for the
    slowest thread, so one thread is both faster and steadier (measured in the speed notes of
    the docs).
    """
    value = os.environ.get(THREADS_ENV, "1")
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        raise BackendError(f"{THREADS_ENV}={value!r}: give a number of threads, 1 or more")
    return threads


class Cancelled(Exception):
    """The caller stopped waiting for this prediction."""


@dataclass(frozen=True)
class LoadedModel:
    """A model folder in memory: weights, tokenizer and their byte-level vocabulary."""

    folder: Path
    model: DecodingLlama
    vocab: Vocab
    window: int
    weights: str = "none"  # how the linear layers are stored: none (float32), fp16, int8
    step: str = "torch"  # what runs a pass over a few tokens: torch, or native (native_step)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device


def load_model(
    folder: Path, device: str | None = None, quantize: str | None = None, step: str | None = None
) -> LoadedModel:
    """Load and check a model folder; every problem becomes one :class:`ModelFolderError`.

    ``quantize``: how the linear layers' weights are stored (:mod:`.quantize`): ``"fp16"`` or
    ``"int8"`` on the CPU, ``"none"`` for float32, ``"auto"`` for fp16 where the CPU kernels
    exist; left out, ``$NDB_QUANTIZE`` decides (default auto). ``step``: ``"native"`` runs
    passes over a few tokens in C (:mod:`.native_step`; float16 weights on an x86-64 CPU),
    ``"torch"`` in torch, ``"auto"`` native where it can run; left out, ``$NDB_STEP`` decides.
    """
    try:
        chosen = quantize_setting(quantize)
        stepping = step_setting(step)
    except ValueError as err:
        raise ModelFolderError(str(err)) from None
    return _load_model(Path(folder), device, chosen, stepping)


@functools.lru_cache(maxsize=4)
def _load_model(folder: Path, device: str | None, quantize: str, step: str) -> LoadedModel:
    if not folder.is_dir():
        raise ModelFolderError(f"model folder {folder} does not exist")
    if quantize in ("fp16", "int8"):
        device = device or "cpu"
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        weights = resolve_setting(quantize, torch.device(device).type)
        model = decoding_model(load_pretrained(folder, device=device), weights, step)
        tokenizer = load_tokenizer(folder)
        vocab = Vocab(tokenizer)
    except (OSError, ValueError) as err:
        raise ModelFolderError(f"cannot load the model in {folder}: {err}") from None
    config = model.config
    recorded = json.loads((folder / "config.json").read_text()).get(TOKENIZER_FINGERPRINT)
    if recorded is not None and recorded != tokenizer_fingerprint(folder / "tokenizer.json"):
        raise ModelFolderError(
            f"the tokenizer in {folder} is not the one these weights were trained with "
            "(its fingerprint differs from config.json's)"
        )
    if vocab.size > config.vocab_size:
        raise ModelFolderError(
            f"the tokenizer in {folder} has {vocab.size} tokens but the model only "
            f"{config.vocab_size}: they do not belong together"
        )
    step = "native" if model.native is not None else "torch"
    return LoadedModel(folder, model.eval(), vocab, config.max_position_embeddings, weights, step)


def decoding_model(source: LlamaForCausalLM, weights: str, step: str) -> DecodingLlama:
    """``source`` laid out for decoding, its linear layers stored as ``weights`` says
    (:func:`.quantize.quantize_weights`) and the native step attached where ``step`` asks for
    it and it can run (:func:`native_step_for`)."""
    model = DecodingLlama(source)
    native = native_step_for(model, weights, step)  # from the float weights, before packing
    model = quantize_weights(model, weights)
    model.native = native
    return model


def native_step_for(model: DecodingLlama, weights: str, step: str) -> NativeStep | None:
    """The native step for ``model`` where ``step`` asks for it and it can run: ``auto`` gives
    None where it cannot (other weights than float16, no compiler), ``native`` an error."""
    if step == "torch":
        return None
    reason: str | None
    if weights != "fp16":
        reason = f"the native step takes float16 weights, not {WEIGHT_NAMES[weights]} ones"
    elif next(model.parameters()).device.type != "cpu":
        reason = "the native step runs on the CPU"
    else:  # only now: this builds the C file when no build is cached
        reason = unavailable_reason()
    if reason is None:
        return NativeStep(model)
    if step == "native":
        raise ValueError(f"{reason} ({STEP_ENV}=native)")
    return None


class LocalEngine:
    """The embedded model behind the backend interface."""

    name = "local"

    def __init__(
        self, model_dir: Path | None = None, device: str | None = None, quantize: str | None = None
    ) -> None:
        folder = Path(model_dir or default_model_dir()).resolve()
        self.loaded = load_model(folder, device, quantize)

    async def open(self, program: Program, *, inverse: bool = False) -> LocalSession:
        code = program.function_context if inverse else program.context
        return LocalSession(self.loaded, code)

    async def aclose(self) -> None:
        return None


class LocalSession:
    """One debug session's KV cache over the embedded model."""

    def __init__(self, loaded: LoadedModel, code: str, draft: int = DRAFT_TOKENS) -> None:
        """``draft``: tokens drafted per forward pass (0: none; the states decoded are the same,
        only the number of forward passes changes)."""
        self.loaded = loaded
        self.draft = draft
        self.threads = decode_threads()
        self.vocab = loaded.vocab
        self.code = code
        self.source = SourceLines(code.split("\n"), loaded.vocab)
        self.cache = loaded.model.new_cache(loaded.window)
        self.ids: list[int] = []  # the tokens whose keys and values the cache holds
        self._lock = threading.Lock()
        self.prompts = PromptBuilder(loaded.vocab, code, loaded.window)
        self.stats = {"fed": 0, "reencoded": 0, "drafted": 0}
        # logits after the cache's first n tokens, for the n past the prompt being decoded after
        self._rows: dict[int, torch.Tensor] = {}
        self._forward: ForwardScorer | None = None  # made on the first checked step back

    # ---- the interface ---------------------------------------------------------------

    async def predict(self, history: History, action: Action, options: DecodeOptions) -> Prediction:
        cancel = threading.Event()
        try:
            return await anyio.to_thread.run_sync(
                self.predict_now, history, action, options, cancel, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            cancel.set()  # the worker thread stops at its next token
            raise

    async def aclose(self) -> None:
        """Free the KV cache now (a closed session's memory returns at once)."""
        await anyio.to_thread.run_sync(self._free)

    def _free(self) -> None:
        with self._lock:  # after any prediction still running in a worker thread
            self.ids = []
            self.cache.keys, self.cache.values = [], []
            self.cache.capacity = self.cache.length = 0
            self._rows.clear()
            self._forward = None

    # ---- the work (in a worker thread) --------------------------------------------------

    @torch.no_grad()
    def predict_now(
        self,
        history: History,
        action: Action,
        options: DecodeOptions,
        cancel: threading.Event | None = None,
    ) -> Prediction:
        with self._lock:
            if self.cache.capacity == 0:
                raise BackendError("this session is closed")
            torch.set_num_threads(self.threads)  # this worker thread's parallel regions
            prompt = self.prompt_ids(history, action, options.max_new_tokens)
            kinds = INVERSE_KINDS if action.kind.is_inverse else FORWARD_KINDS
            seed = options.seed if options.seed is not None else random.randrange(1 << 31)
            generator = torch.Generator().manual_seed(seed)
            expected = self.source.expect(history, action)
            if options.check > 1 and action.kind.is_inverse:
                return self._checked(history, action, prompt, expected, options, generator, cancel)
            draws = [
                self._decode(prompt, kinds, expected, options, generator, cancel)
                for _ in range(options.samples)
            ]
            return draws[0] if options.samples == 1 else majority(draws)

    def _checked(
        self,
        history: History,
        action: Action,
        prompt: list[int],
        expected: Expected,
        options: DecodeOptions,
        generator: torch.Generator,
        cancel: threading.Event | None,
    ) -> Prediction:
        """A step back checked forwards: the greedy state and ``check - 1`` samples, the one with
        the highest inverse plus forward log-probability kept (:mod:`.forward_check`)."""
        greedy = replace(options, temperature=0.0, samples=1, check=1)
        sampled = replace(options, temperature=options.sampling_temperature, samples=1, check=1)
        later = standalone(history.states, len(history.states) - 1)
        scorer = self._scorer()
        best: tuple[float, Prediction] | None = None
        seen: set[str] = set()
        calls = 0
        for k in range(options.check):
            how = greedy if k == 0 else sampled
            try:
                draw = self._decode(prompt, INVERSE_KINDS, expected, how, generator, cancel)
            except PredictionError:
                if k == 0:
                    raise
                continue  # a sample that ran past the budget is no candidate
            calls += draw.model_calls
            key = draw.state.model_dump_json()
            if key in seen:
                continue
            seen.add(key)
            step = forward_view(draw.state, later, action.kind)
            forward = None if step is None else scorer.logprob(step)
            if forward is None:
                if k == 0:  # nothing to check the greedy state against: keep it
                    return draw
                continue
            total = (draw.logprob or 0.0) + forward
            if best is None or total > best[0]:
                best = (total, draw)
        assert best is not None
        return replace(
            best[1], model_calls=calls + scorer.calls, checked=(len(seen), options.check)
        )

    def _scorer(self) -> ForwardScorer:
        """The forward scorer over this session's code (its header cache kept between steps)."""
        if self._forward is None:
            self._forward = ForwardScorer(
                self.loaded.model, self.vocab, self.code, self.loaded.window
            )
        self._forward.calls = 0
        return self._forward

    def prompt_ids(self, history: History, action: Action, budget: int) -> list[int]:
        return self.prompts.ids(history, action, budget)

    def _sync(self, prompt: list[int], drafter: Drafter | None = None) -> torch.Tensor:
        """Bring the cache to ``prompt`` (and a draft of what follows); the logits after its last
        token."""
        keep = 0
        limit = min(len(self.ids), len(prompt) - 1)
        while keep < limit and self.ids[keep] == prompt[keep]:
            keep += 1
        if keep < len(self.ids):
            self.stats["reencoded"] += 1 if keep <= self.prompts.header_length else 0
            self._truncate(keep)
        self._rows.clear()
        room = self.cache.capacity - len(prompt)
        draft = drafter.propose([], room) if drafter is not None and room > 0 else []
        return self._feed(prompt[keep:], draft)

    def _truncate(self, length: int) -> None:
        self.cache.truncate(length)
        del self.ids[length:]
        for n in [n for n in self._rows if n > length]:
            del self._rows[n]

    def _feed(self, ids: list[int], draft: Sequence[int] = ()) -> torch.Tensor:
        """Append ``ids`` and then ``draft`` to the cache in one forward pass; the logits after
        ``ids`` (those after each drafted token are kept in ``_rows``)."""
        tensor = torch.tensor([ids + list(draft)], device=self.loaded.device)
        start = len(self.ids) + len(ids)
        rows: torch.Tensor = self.loaded.model(tensor, self.cache, keep=len(draft) + 1)[0].float()
        self.ids += ids
        self.ids += draft
        self.stats["fed"] += len(ids)
        self.stats["drafted"] += len(draft)
        for i in range(len(draft) + 1):
            self._rows[start + i] = rows[i]
        return rows[0]

    def _logits_after(self, written: list[int], base: int, drafter: Drafter | None) -> bool:
        """Make the logits after ``prompt + written`` ready in ``_rows``; whether that took a
        forward pass (none when an earlier pass drafted exactly ``written``)."""
        held = len(self.ids) - base
        common = 0
        while common < min(held, len(written)) and self.ids[base + common] == written[common]:
            common += 1
        if common == len(written):
            if base + common in self._rows:
                return False
            common -= 1  # the cache holds it inside a chunk fed at once: feed its last token again
        self._truncate(base + common)
        room = self.cache.capacity - len(self.ids) - (len(written) - common)
        draft = drafter.propose(written, room) if drafter is not None and room > 0 else []
        self._feed(written[common:], draft)
        return True

    def _decode(
        self,
        prompt: list[int],
        kinds: tuple[StateKind, ...],
        expected: Expected,
        options: DecodeOptions,
        generator: torch.Generator,
        cancel: threading.Event | None,
    ) -> Prediction:
        drafter = Drafter(prompt, self.draft) if self.draft > 0 else None
        self._sync(prompt, drafter)
        base = len(prompt)
        budget = answer_budget(self.loaded.window, prompt, options.max_new_tokens)
        writer = StateWriter(self.vocab, self.source, kinds, expected)
        out: list[int] = []
        logprobs: dict[object, float] = {}
        generated = forced_count = 0
        calls = 1
        while not writer.done:
            if cancel is not None and cancel.is_set():
                raise Cancelled
            forced = writer.forced()
            if forced is not None:  # fed with the next chosen token (or drafted before it)
                writer.take_forced(forced)
                out += forced.ids
                forced_count += len(forced.ids)
            else:
                calls += self._logits_after(out, base, drafter)
                logits = self._rows[base + len(out)]
                token = choose(logits, writer, options, generator)
                logprob = float(torch.log_softmax(logits, -1)[token])
                for part in writer.advance(token):
                    logprobs[part] = logprobs.get(part, 0.0) + logprob
                out.append(token)
                generated += 1
            if len(out) > budget:  # the text up to the token that crossed it, as vLLM's ends
                raise budget_exceeded(budget, self.vocab.text(out[: budget + 1]))
        return written_prediction(self.vocab.text(out), logprobs, generated, forced_count, calls)
