"""Train the model: tokenize trajectories, pack them, and run a short AdamW loop.

Read top to bottom: configs, the dataset (tokenize, mask, pack), the learning-rate schedule, the
loop (bf16 autocast and fused AdamW on a GPU, fp32 on the CPU), periodic validation (loss, and
next-state exact match per action), checkpoints that resume, and the final HF-format model
folder (config.json, bf16 safetensors shards of at most 16 MiB, tokenizer files).

Loss is taken only where the model will have to write at inference: the states (and the
separator that ends each state), not the code context and not the user's actions.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from neural_debugger.model_backend.llama import (
    LlamaForCausalLM,
    ModelConfig,
    load_pretrained,
    save_pretrained,
)
from neural_debugger.model_backend.tokenizer import PAD, load_tokenizer
from neural_debugger.protocol.tokens import ACTION_SEP, FRAME_SEP, TRACE_END

from .corpus import Corpus
from .grow import Shape, growth_record
from .grow import grow as grow_model
from .shards import read_shards
from .stream import ShardStream
from .tokenizer import DEFAULT_KIND, save_tokenizer, tokenizer_kind, train_tokenizer
from .tokenizer import KINDS as TOKENIZER_KINDS
from .windows import cut


@dataclass(frozen=True)
class TrainConfig:
    name: str
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    vocab_size: int
    block_size: int
    batch_size: int  # sequences per optimizer step
    max_steps: int
    lr: float = 1e-3
    warmup_steps: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    eval_every: int = 200
    eval_batches: int = 8
    eval_prompts: int = 64
    seed: int = 0
    # "wsd" (warmup, stable, decay) or "cosine"; see learning_rate
    schedule: str = "cosine"
    # wsd: the share of the run (steps or the time box, whichever is further) spent decaying;
    # 0 keeps the peak to the end, for a stage whose weights only a later stage will use
    decay_fraction: float = 0.2
    # the kind of tokenizer a new model trains (training/tokenizer.py); a resumed model, or one
    # given a tokenizer, keeps that one and the run records its kind
    tokenizer: str = DEFAULT_KIND

    @property
    def tokens_per_step(self) -> int:
        return self.batch_size * self.block_size


CONFIGS: dict[str, TrainConfig] = {
    # Minutes on a laptop CPU; used by the tests.
    "tiny": TrainConfig(
        "tiny",
        64,
        2,
        2,
        176,
        512,
        512,
        4,
        40,
        lr=3e-3,
        warmup_steps=5,
        eval_every=20,
        eval_batches=2,
        eval_prompts=4,
    ),
    # What tiny grows into in the tests of growth (training/grow.py): wider, deeper, one more head.
    "tiny-wide": TrainConfig(
        "tiny-wide",
        96,
        3,
        3,
        256,
        512,
        512,
        4,
        40,
        lr=3e-3,
        warmup_steps=5,
        eval_every=20,
        eval_batches=2,
        eval_prompts=4,
    ),
    # The CPU config (~4.3M parameters): what a 2-core machine trains in hours.
    "small": TrainConfig(
        "small", 256, 4, 4, 704, 4096, 1024, 8, 1900, lr=2e-3, warmup_steps=100, eval_every=200
    ),
    # GPU configs (bf16, fused AdamW, warmup-stable-decay): same shape family, more depth and
    # width. gpu-small (12.2M parameters) was the shipped model's shape through stage 5 (still
    # ~76 ms a step on 2 CPU cores); gpu-21m, grown from it, is since stage 6. Steps are a
    # ceiling: a GPU stage is time-boxed (--minutes) and its schedule follows the clock.
    "gpu-small": TrainConfig(
        "gpu-small",
        384,
        6,
        6,
        1024,
        4096,
        1024,
        128,
        6000,
        lr=1.5e-3,
        warmup_steps=300,
        eval_every=500,
        schedule="wsd",
    ),
    # The sweep above it: wider and deeper, each at most ~25M parameters so that its bf16
    # weights (at most 55 MB) travel to a lent GPU machine with the tree (tests/training/
    # test_configs.py counts them). Heads stay 64 wide.
    "gpu-17m": TrainConfig(
        "gpu-17m",
        448,
        7,
        7,
        1024,
        4096,
        1024,
        128,
        100_000,
        lr=1.2e-3,
        warmup_steps=300,
        eval_every=500,
        schedule="wsd",
    ),
    "gpu-21m": TrainConfig(
        "gpu-21m",
        448,
        8,
        7,
        1152,
        4096,
        1024,
        128,
        100_000,
        lr=1e-3,
        warmup_steps=300,
        eval_every=500,
        schedule="wsd",
    ),
    "gpu-25m": TrainConfig(
        "gpu-25m",
        512,
        7,
        8,
        1408,
        4096,
        1024,
        128,
        100_000,
        lr=1e-3,
        warmup_steps=300,
        eval_every=500,
        schedule="wsd",
    ),
    "gpu-base": TrainConfig(
        "gpu-base",
        512,
        8,
        8,
        1408,
        8192,
        2048,
        128,
        10000,
        lr=1e-3,
        warmup_steps=750,
        eval_every=1000,
        schedule="wsd",
    ),
}


# ---- dataset ------------------------------------------------------------------------------


@dataclass
class Packed:
    """Sequences of ``block_size + 1`` tokens with a 0/1 loss weight per target position."""

    tokens: torch.Tensor  # int64 [n, block_size + 1]
    weights: torch.Tensor  # float32 [n, block_size] for targets tokens[:, 1:]
    documents: int
    windowed: int  # trajectories longer than a row, cut into windows (training/windows.py)
    lost_transitions: int  # transitions of those that fit in no window
    target_tokens: int


def state_mask(ids: list[int], frame_id: int, stop_ids: set[int]) -> list[int]:
    """1 for each token the model writes: from after a frame separator up to and including the
    next action separator or trace end."""
    mask = [0] * len(ids)
    inside = False
    for i, tok in enumerate(ids):
        if inside:
            mask[i] = 1
            if tok in stop_ids:
                inside = False
        elif tok == frame_id:
            inside = True
    return mask


def pack(
    texts: Iterable[str], tokenizer, block_size: int, seed: int, pad_id: int, workers: int = 1
) -> Packed:
    """Tokenize, mask and pack documents into fixed-length rows (never split a document).

    A trajectory longer than a row becomes the windows a long debug session's prompt shows
    (:func:`neural_debugger.training.windows.cut`), each its own document.

    ``workers`` > 1 packs that many interleaved slices in parallel processes (the masking and
    packing are Python loops, minutes on a large corpus and a GPU waiting); each slice's last
    row is padded, so the rows differ from one process's packing, not the documents in them.
    """
    texts = list(texts)
    if workers > 1 and len(texts) >= 2 * workers:
        return _pack_parallel(texts, tokenizer, block_size, seed, pad_id, workers)
    return _pack_serial(texts, tokenizer, block_size, seed, pad_id)


def _pack_slice(args: tuple) -> tuple[torch.Tensor, torch.Tensor, int, int, int]:
    """One worker's share: compact dtypes on the way back (ids fit int16, weights are 0/1)."""
    packed = _pack_serial(*args)
    return (
        packed.tokens.to(torch.int16),
        packed.weights.to(torch.bool),
        packed.documents,
        packed.windowed,
        packed.lost_transitions,
    )


def _pack_parallel(
    texts: list[str], tokenizer, block_size: int, seed: int, pad_id: int, workers: int
) -> Packed:
    if tokenizer.get_vocab_size() > torch.iinfo(torch.int16).max:
        raise ValueError("parallel packing keeps token ids in int16; the vocabulary is larger")
    jobs = [(texts[i::workers], tokenizer, block_size, seed + i, pad_id) for i in range(workers)]
    # spawn, not fork: a forked child inherits the thread pools of torch and the tokenizer
    # half-held, and hangs in them
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        parts = list(pool.map(_pack_slice, jobs))
    tokens = torch.cat([part[0] for part in parts]).long()
    weights = torch.cat([part[1] for part in parts]).float()
    return Packed(
        tokens,
        weights,
        sum(part[2] for part in parts),
        sum(part[3] for part in parts),
        sum(part[4] for part in parts),
        int(weights.sum().item()),
    )


def _pack_serial(texts: list[str], tokenizer, block_size: int, seed: int, pad_id: int) -> Packed:
    frame_id = tokenizer.token_to_id(FRAME_SEP)
    stop_ids = {tokenizer.token_to_id(ACTION_SEP), tokenizer.token_to_id(TRACE_END)}
    encodings = tokenizer.encode_batch(texts, add_special_tokens=False)
    docs = []
    windowed = lost = 0
    for text, enc in zip(texts, encodings, strict=True):
        if len(enc.ids) <= block_size + 1:
            docs.append((enc.ids, state_mask(enc.ids, frame_id, stop_ids)))
            continue
        pieces = cut(text, enc.ids, tokenizer, block_size + 1)
        windowed += 1
        lost += pieces.lost_transitions
        for window in pieces.windows:
            mask = state_mask(window.ids, frame_id, stop_ids)
            mask[: window.context] = [0] * window.context
            docs.append((window.ids, mask))
    random.Random(seed).shuffle(docs)
    rows_t: list[list[int]] = []
    rows_m: list[list[int]] = []
    cur_t: list[int] = []
    cur_m: list[int] = []
    for ids, mask in docs:
        if len(cur_t) + len(ids) > block_size + 1:
            rows_t.append(cur_t + [pad_id] * (block_size + 1 - len(cur_t)))
            rows_m.append(cur_m + [0] * (block_size + 1 - len(cur_m)))
            cur_t, cur_m = [], []
        cur_t += ids
        cur_m += mask
    if cur_t:
        rows_t.append(cur_t + [pad_id] * (block_size + 1 - len(cur_t)))
        rows_m.append(cur_m + [0] * (block_size + 1 - len(cur_m)))
    tokens = torch.tensor(rows_t, dtype=torch.long)
    weights = torch.tensor(rows_m, dtype=torch.float32)[:, 1:]
    target_tokens = int(weights.sum().item())
    return Packed(tokens, weights, len(docs), windowed, lost, target_tokens)


# ---- schedule and evaluation ---------------------------------------------------------------


def learning_rate(step: int, config: TrainConfig, time_progress: float = 0.0) -> float:
    """Linear warmup, then the config's schedule: cosine decay to zero (as in the paper), or
    warmup-stable-decay (``wsd``): the peak rate until the last ``decay_fraction`` of the run,
    then a linear decay to zero.

    Why WSD for GPU stages: a lent GPU gives minutes at a time, so training is a chain of stages
    that each resume a model folder's weights with a fresh optimizer. With WSD a stage spends
    most of its time at the peak rate and only its end annealing, whatever its length; a later
    stage warms up again from the annealed weights and continues.

    ``time_progress`` (0..1, the share of a wall-clock budget spent) lets a time-boxed run
    anneal fully before its deadline: the schedule follows whichever of steps or time is
    further along, so a run cut by ``--minutes`` still ends at a learning rate near zero."""
    if step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    if config.schedule == "wsd":
        progress = max(step / max(1, config.max_steps), time_progress)
        decay_from = 1.0 - config.decay_fraction
        if config.decay_fraction <= 0 or progress < decay_from:
            return config.lr
        return config.lr * max(0.0, 1.0 - (progress - decay_from) / config.decay_fraction)
    if config.schedule != "cosine":
        raise ValueError(f"unknown schedule {config.schedule!r}; choose cosine or wsd")
    progress = (step - config.warmup_steps) / max(1, config.max_steps - config.warmup_steps)
    progress = max(progress, time_progress)
    return config.lr * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def batch_loss(
    model: LlamaForCausalLM, tokens: torch.Tensor, weights: torch.Tensor
) -> torch.Tensor:
    logits = model(tokens[:, :-1])
    losses = F.cross_entropy(
        logits.float().reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1), reduction="none"
    )
    weights = weights.reshape(-1)
    return (losses * weights).sum() / weights.sum().clamp(min=1.0)


@torch.no_grad()
def validation_loss(model, packed: Packed, config: TrainConfig, device) -> float:
    model.eval()
    losses = []
    for i in range(
        0, min(len(packed.tokens), config.eval_batches * config.batch_size), config.batch_size
    ):
        tokens = packed.tokens[i : i + config.batch_size].to(device)
        weights = packed.weights[i : i + config.batch_size].to(device)
        losses.append(batch_loss(model, tokens, weights).item())
    model.train()
    return sum(losses) / max(len(losses), 1)


# ---- training ------------------------------------------------------------------------------


@dataclass
class RunState:
    step: int = 0
    tokens_seen: int = 0
    train_seconds: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)
    # the runs this one continues (resumed from a model folder): config, steps, tokens, seconds
    earlier: list[dict[str, Any]] = field(default_factory=list)
    # data taken while training (--stream): shards, documents, rows, target tokens, and what
    # the data step reported last (programs made, CruxEval matches dropped, ...)
    streamed: dict[str, Any] = field(default_factory=dict)
    # set when this run grew the resumed weights into its config's shape (training/grow.py)
    grown: dict[str, Any] = field(default_factory=dict)


def batch_seed(config: TrainConfig, state: RunState) -> int:
    """Seed of the batch sampler. It moves with the step (a resumed run does not replay the
    batches it already took) and with the number of earlier stages (a new stage resumed from
    a model folder starts at step 0 again, and must not redraw the last stage's batches)."""
    return config.seed + state.step + 1_000_003 * len(state.earlier)


def earlier_stages(model_dir: Path) -> list[dict[str, Any]]:
    """The training stages behind a model folder (its ``run.json``), oldest first, so that a
    resumed run's record and model card add up every token the weights have seen."""
    record = model_dir / "run.json"
    if not record.exists():
        return []
    run = json.loads(record.read_text())
    state = run["state"]
    history = state.get("history") or [{}]
    stage = {
        "config": run["config"]["name"],
        "lr": run["config"]["lr"],
        "steps": state["step"],
        "tokens": state["tokens_seen"],
        "seconds": state["train_seconds"],
        "val_loss": history[-1].get("val_loss"),
        "streamed": state.get("streamed") or {},
    }
    if state.get("grown"):
        stage["grown"] = state["grown"]
    return [*state.get("earlier", []), stage]


def build_model(config: TrainConfig, tokenizer) -> LlamaForCausalLM:
    from neural_debugger.protocol.tokens import BEGIN_OF_TEXT, END_OF_TEXT

    model_config = ModelConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_hidden_layers,
        num_attention_heads=config.num_attention_heads,
        num_key_value_heads=config.num_attention_heads,
        max_position_embeddings=config.block_size,
        bos_token_id=tokenizer.token_to_id(BEGIN_OF_TEXT),
        eos_token_id=tokenizer.token_to_id(END_OF_TEXT),
        pad_token_id=tokenizer.token_to_id(PAD),
    )
    return LlamaForCausalLM(model_config)


def train(
    config: TrainConfig,
    train_dir: Path,
    val_dir: Path,
    out_dir: Path,
    resume_from: Path | None = None,
    device: str | None = None,
    max_minutes: float | None = None,
    log=print,
    tokenizer_from: Path | None = None,
    workers: int = 1,
    stream: Path | None = None,
    stream_workers: int = 1,
    stream_rows: int = 0,
    grow: bool = False,
) -> RunState:
    """Train ``config`` on the shards in ``train_dir``; write checkpoints and the model to
    ``out_dir``. ``resume_from`` is a model folder (e.g. the shipped model) or a run folder
    with ``training_state.pt``; training then continues from its weights and tokenizer.

    ``tokenizer_from``: a model folder whose tokenizer a new model (no ``resume_from``) takes
    instead of training one, so that a larger model speaks the same tokens as the shipped one.
    ``workers``: processes that pack the data (see :func:`pack`).

    ``stream``: a folder a concurrent ``ndb data`` fills; its shards are packed as they close
    (``stream_workers`` processes) and join the corpus, which holds ``stream_rows`` rows at most
    and then overwrites its oldest (:mod:`.corpus`, :mod:`.stream`).

    ``grow``: the model folder ``resume_from`` names is grown into ``config``'s shape before the
    first step, computing the same function (:mod:`.grow`); the run records the growth."""
    if grow and resume_from is None:
        raise ValueError("growing needs weights to grow: a model folder to resume")
    if grow and (resume_from / "training_state.pt").exists():
        raise ValueError(
            f"{resume_from} is a run folder (training_state.pt): grow a model folder, whose "
            "optimizer state a stage starts afresh anyway"
        )
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(config.seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    on_gpu = device.startswith("cuda")

    tokenizer_home = (
        resume_from if resume_from and (resume_from / "tokenizer.json").exists() else None
    )
    if tokenizer_home is None and tokenizer_from is not None:
        if not (tokenizer_from / "tokenizer.json").exists():
            raise FileNotFoundError(f"no tokenizer.json in {tokenizer_from}")
        tokenizer_home = tokenizer_from
    texts = [rec["text"] for rec in read_shards(train_dir)]
    if tokenizer_home is not None:
        tokenizer = load_tokenizer(tokenizer_home)
        kind = tokenizer_kind(tokenizer)
        if kind != config.tokenizer:
            log(f"tokenizer: {tokenizer_home}'s ({kind}), not a new {config.tokenizer} one")
            config = replace(config, tokenizer=kind)
    else:
        tokenizer = train_tokenizer(texts, config.vocab_size, config.tokenizer)
    save_tokenizer(tokenizer, out_dir, config.block_size)
    pad_id = tokenizer.token_to_id(PAD)
    train_data = pack(texts, tokenizer, config.block_size, config.seed, pad_id, workers)
    del texts
    val_texts = [rec["text"] for rec in read_shards(val_dir)]
    val_data = pack(val_texts, tokenizer, config.block_size, config.seed + 1, pad_id)
    log(
        f"data: {train_data.documents} documents in {len(train_data.tokens)} rows "
        f"({train_data.target_tokens} target tokens; {train_data.windowed} long trajectories "
        f"cut into windows, {train_data.lost_transitions} of their transitions fit none); "
        f"validation {val_data.documents}"
    )

    state = RunState()
    resume_state = resume_from / "training_state.pt" if resume_from else None
    if resume_state is not None and resume_state.exists():
        saved = torch.load(resume_state, map_location="cpu", weights_only=False)
        model = LlamaForCausalLM(ModelConfig(**saved["model_config"]))
        model.load_state_dict(saved["model"])
        state = RunState(**saved["run_state"])
    elif resume_from is not None:
        model = load_pretrained(resume_from, dtype=torch.float32).train()
        state.earlier = earlier_stages(resume_from)
        shape = (model.config.hidden_size, model.config.num_hidden_layers)
        if grow and Shape.of(model.config) != Shape.of(config):
            model, state.grown = grown_model(model, config, val_data, log)
        elif shape != (config.hidden_size, config.num_hidden_layers):
            log(
                f"resuming keeps the model's shape (hidden {shape[0]}, {shape[1]} layers); "
                f"config {config.name}'s shape is ignored"
            )
    else:
        model = build_model(config, tokenizer)
    model.to(device).train()
    log(f"model: {model.num_parameters():,} parameters on {device}")

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": config.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=config.lr,
        betas=(0.9, 0.95),
        fused=on_gpu,
    )
    if resume_state is not None and resume_state.exists():
        optimizer.load_state_dict(saved["optimizer"])
    step_fn = torch.compile(model) if on_gpu else model
    # the whole corpus fits on the card: no host copy per step
    corpus = Corpus(train_data.tokens, train_data.weights, stream_rows, device)
    del train_data
    feed = None
    if stream is not None:
        feed = ShardStream(
            stream, tokenizer, config.block_size, pad_id, stream_workers, seed=config.seed + 2
        )
        for key in ("shards", "documents", "rows", "target_tokens", "failed_shards"):
            state.streamed.setdefault(key, 0)

    generator = torch.Generator().manual_seed(batch_seed(config, state))
    started = run_started = time.monotonic()
    deadline = started + max_minutes * 60 if max_minutes else None
    first_step = state.step
    stepped = False  # a first step has run (compiled, or eagerly after a compiler failure)
    while state.step < config.max_steps:
        spent = (time.monotonic() - run_started) / (max_minutes * 60) if max_minutes else 0.0
        lr = learning_rate(state.step, config, time_progress=spent)
        for group in optimizer.param_groups:
            group["lr"] = lr
        if feed is not None and state.step % STREAM_POLL_STEPS == 0:
            take_stream(feed, corpus, state, log)
        tokens, weights = corpus.sample(config.batch_size, generator)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=on_gpu):
            try:
                loss = batch_loss(step_fn, tokens, weights)
            except Exception as err:  # a compiler that fails on the first step must not cost
                if step_fn is model or stepped:  # the run; any later error is raised
                    raise
                log(f"torch.compile failed ({type(err).__name__}: {err}); training eagerly")
                step_fn = model
                loss = batch_loss(step_fn, tokens, weights)
        stepped = True
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        state.step += 1
        state.tokens_seen += config.tokens_per_step
        if state.step % 10 == 0 or state.step == 1:
            elapsed = time.monotonic() - started
            rate = (state.step - first_step) * config.tokens_per_step / max(elapsed, 1e-9)
            log(f"step {state.step} loss {loss.item():.4f} lr {lr:.2e} {rate:,.0f} tok/s")
        out_of_time = deadline is not None and time.monotonic() > deadline
        if state.step % config.eval_every == 0 or state.step == config.max_steps or out_of_time:
            state.train_seconds += time.monotonic() - started
            started = time.monotonic()
            first_step = state.step
            entry = {
                "step": state.step,
                "tokens": state.tokens_seen,
                "train_loss": loss.item(),
                "val_loss": validation_loss(model, val_data, config, device),
            }
            state.history.append(entry)
            log(f"eval {json.dumps(entry)}")
            checkpoint(model, optimizer, state, config, out_dir)
        if out_of_time:
            log(f"time budget of {max_minutes} min reached at step {state.step}")
            break
    checkpoint(model, optimizer, state, config, out_dir)
    if feed is not None:
        feed.close()
    return state


def grown_model(
    model: LlamaForCausalLM, config: TrainConfig, val_data: Packed, log=print
) -> tuple[LlamaForCausalLM, dict[str, Any]]:
    """``model`` grown into ``config``'s shape, and the record of it, with how far the two
    models' logits are apart on the first validation row (float rounding only)."""
    bigger = grow_model(model, Shape.of(config), config.seed)
    ids = val_data.tokens[:1, : min(256, val_data.tokens.shape[1])]
    record = growth_record(model, bigger, config.seed, ids)
    bigger.train()
    log(
        f"grown: {record['parameters_from']:,} -> {record['parameters_to']:,} parameters "
        f"({Shape.of(config)}); largest logit difference on a validation row "
        f"{record['largest_logit_difference']:.2e}"
    )
    return bigger, record


STREAM_POLL_STEPS = 20  # how often the loop takes what the stream has packed


def take_stream(feed: ShardStream, corpus: Corpus, state: RunState, log=print) -> None:
    """Add the shards the stream packed since the last call to the corpus; count them."""
    parts = feed.poll()
    for part in parts:
        corpus.add(part.tokens, part.weights)
        state.streamed["shards"] += 1
        state.streamed["documents"] += part.documents
        state.streamed["rows"] += len(part.tokens)
        state.streamed["target_tokens"] += part.target_tokens
    if feed.failures:
        log(f"stream: {len(feed.failures)} shard(s) could not be packed, skipped: {feed.failures}")
        state.streamed["failed_shards"] += len(feed.failures)
        feed.failures.clear()
    keys = ("programs", "trajectories", "dropped_cruxeval", "dropped_seen", "origins", "mix")
    state.streamed["data"] = {k: feed.generator[k] for k in keys if k in feed.generator}
    if parts:
        log(
            f"stream: {state.streamed['shards']} shards taken "
            f"({state.streamed['rows']:,} rows); corpus {corpus.filled:,}/{corpus.capacity:,} "
            f"rows, {corpus.overwritten:,} overwritten"
        )
    if feed.drained and "dry_from_step" not in state.streamed:
        # said once: from here the run repeats the rows it holds (stage 6 overfit from here)
        state.streamed["dry_from_step"] = state.step
        log(f"stream: the data run has ended; no fresh rows after step {state.step}")


def checkpoint(model, optimizer, state: RunState, config: TrainConfig, out_dir: Path) -> None:
    """The HF model folder (bf16 shards) plus ``training_state.pt`` (fp32, optimizer) to resume."""
    save_pretrained(model, out_dir)
    torch.save(
        {
            "model": model.state_dict(),
            "model_config": asdict(model.config),
            "optimizer": optimizer.state_dict(),
            "run_state": asdict(state),
            "train_config": asdict(config),
        },
        out_dir / "training_state.pt",
    )
    (out_dir / "run.json").write_text(
        json.dumps({"config": asdict(config), "state": asdict(state)}, indent=2) + "\n"
    )


def config_by_name(name: str, **overrides: Any) -> TrainConfig:
    if name not in CONFIGS:
        raise ValueError(f"unknown config {name!r}; choose from {', '.join(CONFIGS)}")
    config = replace(CONFIGS[name], **{k: v for k, v in overrides.items() if v is not None})
    if config.schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {config.schedule!r}; choose from cosine, wsd")
    if config.tokenizer not in TOKENIZER_KINDS:
        raise ValueError(
            f"unknown tokenizer kind {config.tokenizer!r}; choose from {', '.join(TOKENIZER_KINDS)}"
        )
    if not 0.0 <= config.decay_fraction <= 1.0:
        raise ValueError(f"the decay fraction must be within 0..1, not {config.decay_fraction}")
    return config


SCHEDULES = ("cosine", "wsd")
