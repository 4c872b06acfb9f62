"""Prompts as token ids, built piece by piece and kept inside the model's window.

Every frame and action is tokenised once and cached: the language's separators are special
tokens, which the tokenizer never merges across, so the concatenated pieces equal the
tokenisation of the whole prompt text. That also makes consecutive prompts of a session share
their prefix token for token, which is what the embedded KV cache and vLLM's prefix cache reuse.

A long session outgrows the window (a prompt must leave ``RESERVE`` tokens for the answer):
the oldest states are then dropped in one jump that frees a quarter of the room (the first kept
state is written with its full locals), so the re-encoding this costs happens rarely.
"""

from __future__ import annotations

from neural_debugger.protocol import Action, State, standalone
from neural_debugger.protocol.encoding import encode_frame, encode_header, encode_step
from neural_debugger.protocol.tokens import FRAME_SEP

from .backend import ContextTooLong, History
from .vocab import Vocab

RESERVE = 256  # tokens always left for the answer; a larger budget takes what the window has


def answer_budget(window: int, prompt: list[int], budget: int) -> int:
    """The tokens one state may take after ``prompt``: the budget, as far as the window allows."""
    return min(budget, window - len(prompt))


class PromptBuilder:
    """The prompts of one session over one code context."""

    def __init__(self, vocab: Vocab, code: str, window: int) -> None:
        self.vocab = vocab
        self.code = code
        self.window = window
        self._header = vocab.encode(encode_header(code))
        self.header_length = len(self._header)
        self._pieces: dict[str, list[int]] = {}
        self._window_start = 0

    def ids(self, history: History, action: Action, budget: int) -> list[int]:
        """The prompt's token ids, the oldest states dropped if the window needs it."""
        if history.code != self.code:
            raise ValueError("the history belongs to another program")
        frames = [self._piece(encode_frame(s)) for s in history.states]
        steps = [self._piece(encode_step(a)) for a in (*history.actions, action)]
        room = self.window - min(budget, RESERVE) - self.header_length - 1
        sizes = [len(f) + len(s) for f, s in zip(frames, steps, strict=True)]
        start = min(self._window_start, len(frames) - 1)
        if sum(sizes[start:]) > room or (start and sum(sizes) <= room):
            start = self._slide(history.states, sizes, room)
        self._window_start = start
        ids = list(self._header)
        if start:
            first = standalone(history.states, start)
            ids += self._piece(encode_frame(first)) + steps[start]
            start += 1
        for frame, step in zip(frames[start:], steps[start:], strict=True):
            ids += frame + step
        ids.append(self.vocab.special_id[FRAME_SEP])
        return ids

    def _slide(self, states: tuple[State, ...], sizes: list[int], room: int) -> int:
        if sum(sizes) <= room:
            return 0
        # drop enough that a quarter of the room is free again, so this happens rarely
        for target in (room * 3 // 4, room):
            total = sum(sizes)
            for start in range(1, len(sizes)):
                total -= sizes[start - 1]
                first = len(self._piece(encode_frame(standalone(states, start))))
                if total - len(self._piece(encode_frame(states[start]))) + first <= target:
                    return start
        budget = self.window - room - self.header_length - 1
        raise ContextTooLong(
            f"the code ({self.header_length} tokens), the last state and room for the answer "
            f"({budget} tokens) do not fit the model's window of {self.window} tokens"
        )

    def _piece(self, text: str) -> list[int]:
        ids = self._pieces.get(text)
        if ids is None:
            ids = self.vocab.encode(text)
            if len(self._pieces) > 4096:
                self._pieces.clear()
            self._pieces[text] = ids
        return ids
