"""Small literal inputs for entry calls and script data.

Why: the model sees the inputs in the entry call (``count_words("hi there")``) and in a
script's first lines; they must look like data people pass around (short words, sentences
with punctuation, small lists of ints, little dicts) and be small enough that a run stays
short: lists of 0-8 ints in -20..50, strings of 0-12 characters, dicts of at most 5 items.
"""

from __future__ import annotations

import random

from .names import DIGITS, LETTERS, WORDS
from .scope import BOOL, DII, DSI, FLOAT, INT, LINT, LSTR, PAIR, SINT, STR

MAX_STR = 12


def int_input(rng: random.Random) -> int:
    if rng.random() < 0.7:
        return rng.randint(0, 12)
    return rng.randint(-20, 50)


def text_input(rng: random.Random) -> str:
    """A short string: words, a sentence, digits, ``key=value``, CSV, or random characters."""
    r = rng.random()
    if r < 0.05:
        text = ""
    elif r < 0.3:
        n = rng.choice([1, 2, 2, 3])
        words = [rng.choice(WORDS) for _ in range(n)]
        if rng.random() < 0.3:
            words = [w.capitalize() for w in words]
        text = " ".join(words)
        if rng.random() < 0.25:
            text += rng.choice("!?.,")
    elif r < 0.42:
        text = rng.choice(WORDS)
        if rng.random() < 0.3:
            text = text.upper() if rng.random() < 0.5 else text.capitalize()
    elif r < 0.52:
        text = "".join(rng.choice(DIGITS) for _ in range(rng.randint(1, 5)))
    elif r < 0.62:
        sep = rng.choice([",", ", ", ";", "-", " "])
        text = sep.join(rng.choice(WORDS)[:4] for _ in range(rng.randint(2, 4)))
    elif r < 0.7:
        text = f"{rng.choice(WORDS)}{rng.choice('=:')}{rng.choice((*WORDS, '3', '42', '7'))}"
    elif r < 0.78:
        text = rng.choice(("level", "noon", "radar", "abba", "racecar", "a", "aa", "kayak"))
    elif r < 0.86:
        pad = " " * rng.randint(1, 3)
        text = f"{pad}{rng.choice(WORDS)}{pad if rng.random() < 0.5 else ''}"
    else:
        alphabet = LETTERS + LETTERS.upper()[:6] + DIGITS[:5] + " .,!-_"
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, MAX_STR)))
    return text[:MAX_STR]


def value_input(rng: random.Random, t: str) -> object:
    """A random value of the generator's type ``t``."""
    if t == INT:
        return int_input(rng)
    if t == BOOL:
        return rng.random() < 0.5
    if t == FLOAT:
        return round(rng.uniform(0, 10), 1)
    if t == STR:
        return text_input(rng)
    if t == LINT:
        n = rng.choices(range(9), [2, 3, 5, 6, 6, 5, 4, 3, 2])[0]
        if rng.random() < 0.7:
            return [rng.randint(-5, 20) for _ in range(n)]
        return [rng.randint(-20, 50) for _ in range(n)]
    if t == LSTR:
        n = rng.choices(range(6), [1, 2, 4, 4, 3, 2])[0]
        return [rng.choice(WORDS) for _ in range(n)]
    if t == DSI:
        n = rng.choices(range(6), [1, 2, 4, 4, 3, 2])[0]
        return {w: rng.randint(0, 20) for w in rng.sample(WORDS, n)}
    if t == DII:
        n = rng.choices(range(6), [1, 2, 4, 4, 3, 2])[0]
        return {k: rng.randint(-5, 20) for k in rng.sample(range(10), n)}
    if t == SINT:
        return set(rng.sample(range(-3, 15), rng.randint(0, 5)))
    if t == PAIR:
        return (int_input(rng), int_input(rng))
    raise ValueError(f"no input for type {t}")
