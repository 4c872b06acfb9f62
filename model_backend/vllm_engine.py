"""The vLLM engine: the backend interface over vLLM's OpenAI-compatible server.

For GPUs and scale-out: many debug sessions share one or more servers, which batch their requests
continuously. Prompts travel as token ids built by the same :class:`.prompt.PromptBuilder` as the
embedded engine, so consecutive prompts of a session share their prefix token for token and the
server's prefix cache turns each into a few new tokens of work.

Decoding walks the same grammar (:mod:`.grammar`) as the embedded engine, one request per token
the model chooses (``max_tokens: 1``); tokens the grammar forces cost no request:

* where the grammar can list every allowed token (the event, the source line) the request carries
  ``allowed_token_ids``, and vLLM's greedy choice is the best allowed token;
* inside JSON the request is unrestricted: the greedy token is taken if the grammar accepts it,
  else the best accepted among the top 20 log-probabilities, else a second request restricted to
  every token the grammar accepts.

That is exactly the embedded engine's rule, so under greedy decoding both write the same states
(``make test-vllm`` checks it). Confidences use the model's unrestricted log-probabilities, as the
embedded engine does. Sampling draws from the top 20 allowed tokens on the client, seeded.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import httpx

from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, StateKind
from neural_debugger.tracer.program import Program

from .backend import (
    BackendUnavailable,
    DecodeOptions,
    History,
    ModelFolderError,
    Prediction,
    budget_exceeded,
    majority,
    written_prediction,
)
from .flow import Expected
from .grammar import FORWARD_KINDS, INVERSE_KINDS, SourceLines, StateWriter
from .prompt import PromptBuilder, answer_budget
from .vocab import Vocab

TOP_LOGPROBS = 20  # vLLM's default --max-logprobs


class VllmEngine:
    """Sessions over one or more vLLM servers (assigned round-robin, failing over on errors)."""

    name = "vllm"

    def __init__(
        self, urls: list[str], model_dir: Path | None = None, timeout: float = 60.0
    ) -> None:
        from .tokenizer import load_tokenizer

        folder = Path(model_dir or default_model_dir())
        try:
            self.vocab = Vocab(load_tokenizer(folder))
            config = json.loads((folder / "config.json").read_text())
        except (OSError, ValueError) as err:
            raise ModelFolderError(f"cannot read the model folder {folder}: {err}") from None
        self.window = int(config.get("max_position_embeddings", 2048))
        self.urls = [u.rstrip("/") for u in urls]
        self.client = httpx.AsyncClient(timeout=timeout)
        self._next = itertools.cycle(range(len(self.urls)))
        self._served: dict[str, str] = {}  # url -> the model name it serves (checked)

    async def open(self, program: Program, *, inverse: bool = False) -> VllmSession:
        code = program.function_context if inverse else program.context
        return VllmSession(self, code, next(self._next))

    async def aclose(self) -> None:
        await self.client.aclose()

    # ---- talking to servers ---------------------------------------------------------

    async def _model_name(self, url: str) -> str:
        """The model ``url`` serves, once checked to use this engine's tokenizer."""
        name = self._served.get(url)
        if name is not None:
            return name
        models = await self._call("GET", url, "/v1/models")
        try:
            name = str(models["data"][0]["id"])
        except (KeyError, IndexError, TypeError):
            raise BackendUnavailable(f"the vLLM server at {url} lists no model") from None
        probe = "<|src_sep|>def f(x):\n<|arg_sep|>"
        tokens = await self._call("POST", url, "/tokenize", {"model": name, "prompt": probe})
        if tokens.get("tokens") != self.vocab.encode(probe):
            raise ModelFolderError(
                f"the vLLM server at {url} serves {name!r}, whose tokenizer differs from the "
                "model folder given to the debugger"
            )
        self._served[url] = name
        return name

    async def _call(
        self, method: str, url: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        try:
            response = await self.client.request(method, url + path, json=body)
        except httpx.TimeoutException:
            raise BackendUnavailable(f"the vLLM server at {url} did not answer in time") from None
        except httpx.HTTPError as err:
            raise BackendUnavailable(f"cannot reach the vLLM server at {url}: {err}") from None
        if response.status_code != 200:
            raise BackendUnavailable(
                f"the vLLM server at {url} answered {response.status_code}: {response.text[:300]}"
            )
        try:
            data = response.json()
        except ValueError:
            raise BackendUnavailable(
                f"the vLLM server at {url} answered something that is not JSON: "
                f"{response.text[:100]!r}"
            ) from None
        if not isinstance(data, dict):
            raise BackendUnavailable(f"the vLLM server at {url} answered {str(data)[:100]!r}")
        return data

    async def next_token(
        self, server: int, prompt: list[int], allowed: list[int] | None
    ) -> tuple[int, float, list[tuple[int, float]]]:
        """One greedy token (the best allowed one), its log-probability, and the top 20."""
        errors = []
        for attempt in range(len(self.urls)):
            url = self.urls[(server + attempt) % len(self.urls)]
            try:
                return await self._next_token(url, prompt, allowed)
            except BackendUnavailable as err:
                errors.append(str(err))
        raise BackendUnavailable("; ".join(errors))

    async def _next_token(
        self, url: str, prompt: list[int], allowed: list[int] | None
    ) -> tuple[int, float, list[tuple[int, float]]]:
        body = {
            "model": await self._model_name(url),
            "prompt": prompt,
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": TOP_LOGPROBS,
            "return_token_ids": True,
            "return_tokens_as_token_ids": True,
            "skip_special_tokens": False,
        }
        if allowed is not None:
            body["allowed_token_ids"] = allowed
        data = await self._call("POST", url, "/v1/completions", body)
        try:
            choice = data["choices"][0]
            token = int(choice["token_ids"][0])
            logprobs = choice["logprobs"]
            logprob = float(logprobs["token_logprobs"][0])
            top = [
                (int(key.split(":", 1)[1]), float(value))
                for key, value in logprobs["top_logprobs"][0].items()
            ]
        except (KeyError, IndexError, TypeError, ValueError):
            raise BackendUnavailable(
                f"the vLLM server at {url} answered a completion without token ids and "
                f"log-probabilities: {json.dumps(data)[:200]}"
            ) from None
        if not 0 <= token < self.vocab.size:
            raise BackendUnavailable(f"the vLLM server at {url} wrote an unknown token {token}")
        top.sort(key=lambda item: -item[1])
        return token, logprob, top


class VllmSession:
    """One debug session on a vLLM server."""

    def __init__(self, engine: VllmEngine, code: str, server: int) -> None:
        self.engine = engine
        self.vocab = engine.vocab
        self.code = code
        self.server = server
        self.source = SourceLines(code.split("\n"), engine.vocab)
        self.prompts = PromptBuilder(engine.vocab, code, engine.window)
        self.requests = 0

    async def predict(self, history: History, action: Action, options: DecodeOptions) -> Prediction:
        prompt = self.prompts.ids(history, action, options.max_new_tokens)
        kinds = INVERSE_KINDS if action.kind.is_inverse else FORWARD_KINDS
        rng = random.Random(options.seed)
        expected = self.source.expect(history, action)
        draws = [
            await self._decode(prompt, kinds, expected, options, rng)
            for _ in range(options.samples)
        ]
        return draws[0] if options.samples == 1 else majority(draws)

    async def aclose(self) -> None:
        return None

    async def _decode(
        self,
        prompt: list[int],
        kinds: tuple[StateKind, ...],
        expected: Expected,
        options: DecodeOptions,
        rng: random.Random,
    ) -> Prediction:
        budget = answer_budget(self.engine.window, prompt, options.max_new_tokens)
        writer = StateWriter(self.vocab, self.source, kinds, expected)
        out: list[int] = []
        logprobs: dict[object, float] = {}
        generated = forced_count = calls = 0
        while not writer.done:
            forced = writer.forced()
            if forced is not None:
                del out[len(out) - forced.drop :]
                writer.take_forced(forced)
                out += forced.ids
                forced_count += len(forced.ids)
            else:
                token, logprob, spent = await self._choose(prompt + out, writer, options, rng)
                calls += spent
                for part in writer.advance(token):
                    logprobs[part] = logprobs.get(part, 0.0) + logprob
                out.append(token)
                generated += 1
            if len(out) > budget:
                raise budget_exceeded(budget, self.vocab.text(out))
        self.requests += calls
        return written_prediction(self.vocab.text(out), logprobs, generated, forced_count, calls)

    async def _choose(
        self, ids: list[int], writer: StateWriter, options: DecodeOptions, rng: random.Random
    ) -> tuple[int, float, int]:
        """The token to take, its log-probability, and the requests it cost."""
        allowed = writer.allowed_ids()
        listed = sorted(allowed) if allowed is not None else None
        token, logprob, top = await self.engine.next_token(self.server, ids, listed)
        calls = 1
        if options.greedy:
            if allowed is not None or writer.accepts(token):
                return token, logprob, calls
            fitting = [(t, lp) for t, lp in top if writer.accepts(t)]
            if fitting:
                return fitting[0][0], fitting[0][1], calls
        else:
            fitting = [(t, lp) for t, lp in top if writer.accepts(t)][: options.top_k]
            if fitting:
                return (*_sample(fitting, options, rng), calls)
        # nothing acceptable among the top tokens: ask again, restricted to what fits
        everything = [t for t in range(self.vocab.size) if writer.accepts(t)]
        token, logprob, top = await self.engine.next_token(self.server, ids, everything)
        return token, logprob, calls + 1


def _sample(
    fitting: list[tuple[int, float]], options: DecodeOptions, rng: random.Random
) -> tuple[int, float]:
    temperature = options.sampling_temperature
    weights = [math.exp(lp / temperature) for _, lp in fitting]
    total = sum(weights)
    kept, mass = [], 0.0
    for (token, lp), weight in zip(fitting, weights, strict=True):
        if mass >= options.top_p * total:
            break
        kept.append((token, lp, weight))
        mass += weight
    token, lp, _ = rng.choices(kept, weights=[w for _, _, w in kept])[0]
    return token, lp
