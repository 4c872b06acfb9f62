"""The packed rows a training run samples its batches from (:class:`Corpus`).

Why a buffer of its own: a run that takes streamed data (``ndb train --stream``) keeps adding
rows while it trains, and the GPU holds them all. So rows are kept compact (int16 ids, bool
weights: a quarter and an eighth of int64 / float32) in one buffer of fixed capacity, which
overwrites its oldest rows once full: the sampler draws more and more from unseen data.
"""

from __future__ import annotations

import torch


class Corpus:
    """The rows the sampler draws from, as int16 ids and bool weights on the training device.

    ``capacity`` rows at most: rows added beyond it overwrite the oldest ones, first those of
    the carried data. Without a stream the capacity is the carried data's size."""

    def __init__(self, tokens: torch.Tensor, weights: torch.Tensor, capacity: int, device):
        rows, width = tokens.shape
        if tokens.max().item() > torch.iinfo(torch.int16).max:
            raise ValueError("the corpus keeps token ids in int16; the vocabulary is larger")
        self.capacity = max(capacity, rows)
        self.tokens = torch.empty((self.capacity, width), dtype=torch.int16, device=device)
        self.weights = torch.empty((self.capacity, width - 1), dtype=torch.bool, device=device)
        self.tokens[:rows] = tokens.to(device=device, dtype=torch.int16)
        self.weights[:rows] = weights.to(device=device, dtype=torch.bool)
        self.filled = rows  # rows holding data
        self.next = rows % self.capacity  # where the next added row goes
        self.added = 0  # rows added after the carried data
        self.overwritten = 0

    def add(self, tokens: torch.Tensor, weights: torch.Tensor) -> None:
        for start in range(0, len(tokens), self.capacity):
            end = start + self.capacity
            part_t, part_w = tokens[start:end], weights[start:end]
            n = len(part_t)
            first = min(n, self.capacity - self.next)  # up to the end, then wrap
            for dst, src in ((self.tokens, part_t), (self.weights, part_w)):
                dst[self.next : self.next + first] = src[:first].to(dst.device, dst.dtype)
                dst[: n - first] = src[first:].to(dst.device, dst.dtype)
            self.overwritten += max(0, self.filled + n - self.capacity)
            self.filled = min(self.capacity, self.filled + n)
            self.next = (self.next + n) % self.capacity
            self.added += n

    def sample(
        self, batch_size: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A batch of rows drawn uniformly: token ids (int64) and target weights (float32)."""
        pick = torch.randint(0, self.filled, (batch_size,), generator=generator)
        pick = pick.to(self.tokens.device)
        return self.tokens[pick].long(), self.weights[pick].float()
