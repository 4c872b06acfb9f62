"""The vLLM engine: the backend interface over vLLM's OpenAI-compatible server.

For GPUs and scale-out: many debug sessions share one or more servers, which batch their requests
continuously. Prompts travel as token ids built by the same :class:`.prompt.PromptBuilder` as the
embedded engine, so consecutive prompts of a session share their prefix token for token and the
server's prefix cache turns each into a few new tokens of work (the answer's
``usage.prompt_tokens_details.cached_tokens`` says how many were reused; sessions keep it).

One predicted state is one ``/v1/completions`` request. The grammar runs inside the server
(:mod:`.vllm_grammar`, a logits processor ``ndb serve-model`` loads): the request carries what
the grammar needs (:mod:`.grammar_request`: the code, forward or inverse kinds, what the code and
the action fix about the state) and the processor applies the embedded engine's rule
(:mod:`.choosing`) at every token, forced tokens included, ending the request with the state.
The client then replays the returned token ids through the same :class:`.grammar.StateWriter`,
which checks them, tells forced tokens from chosen ones and says which part each belongs to.

Confidences come from the log-probabilities vLLM returns for the chosen tokens. vLLM's default
``logprobs_mode`` is ``raw_logprobs``: computed from the model's logits before any logits
processor, so they are the unrestricted model log-probabilities, exactly what the embedded engine
reports (a server started with another ``--logprobs-mode`` would report other numbers). Under
greedy decoding both engines write the same states on the same weights (``make test-vllm``
checks it). Sampling (``samples`` draws) is one request with ``n`` choices, seeded per choice.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action
from neural_debugger.protocol.tokens import END_OF_TEXT
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
from .choosing import wanted
from .grammar import FORWARD_KINDS, INVERSE_KINDS, SourceLines, StateWriter
from .grammar_request import XARG, GrammarRequest
from .prompt import PromptBuilder, answer_budget
from .vocab import Vocab


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

    async def counters(self, url: str) -> dict[str, float]:
        """The server's own counters from its ``/metrics`` (Prometheus text), summed over their
        labels, ``vllm:`` dropped: ``request_success_total`` (requests finished),
        ``prefix_cache_hits_total`` and ``prefix_cache_queries_total`` (prompt tokens found in
        and looked up in the prefix cache), and the rest."""
        try:
            response = await self.client.get(url.rstrip("/") + "/metrics")
        except httpx.HTTPError as err:
            raise BackendUnavailable(f"cannot reach the vLLM server at {url}: {err}") from None
        totals: dict[str, float] = {}
        for line in response.text.splitlines():
            if not line.startswith("vllm:"):
                continue
            name, _, value = line.rpartition(" ")
            key = name.split("{", 1)[0].removeprefix("vllm:")
            try:
                totals[key] = totals.get(key, 0.0) + float(value)
            except ValueError:
                continue
        return totals

    async def complete(self, server: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One completion, from server ``server`` or, should it fail, the next ones in turn;
        the index of the server that answered and its answer."""
        errors = []
        for attempt in range(len(self.urls)):
            index = (server + attempt) % len(self.urls)
            url = self.urls[index]
            try:
                request = {"model": await self._model_name(url), **body}
                return index, await self._call("POST", url, "/v1/completions", request)
            except BackendUnavailable as err:
                errors.append(str(err))
        raise BackendUnavailable("; ".join(errors))


class VllmSession:
    """One debug session on a vLLM server (it stays on the server that last answered, whose
    prefix cache holds its prompt)."""

    def __init__(self, engine: VllmEngine, code: str, server: int) -> None:
        self.engine = engine
        self.vocab = engine.vocab
        self.end = engine.vocab.special_id[END_OF_TEXT]
        self.code = code
        self.server = server
        self.source = SourceLines(code.split("\n"), engine.vocab)
        self.prompts = PromptBuilder(engine.vocab, code, engine.window)
        self.requests = 0  # completion requests sent (one per predicted state)
        self.cached_tokens: list[int] = []  # prompt tokens the server's cache held, per request

    async def predict(self, history: History, action: Action, options: DecodeOptions) -> Prediction:
        prompt = self.prompts.ids(history, action, options.max_new_tokens)
        inverse = action.kind.is_inverse
        expected = self.source.expect(history, action)
        budget = answer_budget(self.engine.window, prompt, options.max_new_tokens)
        # room for the end-of-text token that ends the request, as far as the window allows
        room = min(budget + 1, self.engine.window - len(prompt))
        if room < 1:
            raise budget_exceeded(budget, "")
        grammar = GrammarRequest(self.code, inverse, expected, wanted(options))
        body: dict[str, Any] = {
            "prompt": prompt,
            "max_tokens": room,
            "n": options.samples,
            "temperature": 0.0 if options.greedy else options.sampling_temperature,
            "top_p": options.top_p,
            "logprobs": 0,
            "return_token_ids": True,
            "skip_special_tokens": False,
            "stop_token_ids": [self.end],
            "vllm_xargs": {XARG: grammar.to_json()},
        }
        if options.seed is not None:
            body["seed"] = options.seed
        self.server, data = await self.engine.complete(self.server, body)
        self.requests += 1
        url = self.engine.urls[self.server]
        details = (data.get("usage") or {}).get("prompt_tokens_details") or {}
        self.cached_tokens.append(int(details.get("cached_tokens") or 0))
        choices = data.get("choices")
        if not isinstance(choices, list) or len(choices) != options.samples:
            raise BackendUnavailable(
                f"the vLLM server at {url} answered {json.dumps(data)[:200]} instead of "
                f"{options.samples} completion(s)"
            )
        kinds = INVERSE_KINDS if inverse else FORWARD_KINDS
        draws = [
            self._replay(url, choice, StateWriter(self.vocab, self.source, kinds, expected), budget)
            for choice in sorted(choices, key=lambda c: int(c.get("index", 0)))
        ]
        if options.samples == 1:
            return draws[0]
        return replace(majority(draws), model_calls=1)

    async def aclose(self) -> None:
        return None

    def _replay(
        self, url: str, choice: dict[str, Any], writer: StateWriter, budget: int
    ) -> Prediction:
        """The state one returned completion wrote, checked token by token against the grammar:
        its text, and the log-probabilities of the tokens the model chose, by part."""
        try:
            tokens = [int(t) for t in choice["token_ids"]]
            token_logprobs = [float(lp) for lp in choice["logprobs"]["token_logprobs"]]
        except (KeyError, TypeError, ValueError):
            raise BackendUnavailable(
                f"the vLLM server at {url} answered a completion without token ids and "
                f"log-probabilities: {json.dumps(choice)[:200]}"
            ) from None
        if len(token_logprobs) != len(tokens):
            raise BackendUnavailable(f"the vLLM server at {url} answered mismatched log-probs")
        out: list[int] = []
        logprobs: dict[object, float] = {}
        generated = forced_count = 0
        for token, logprob in zip(tokens, token_logprobs, strict=True):
            if writer.done:
                if token == self.end:
                    break
                raise self._off_grammar(url, out)
            if not 0 <= token < self.vocab.size:
                raise BackendUnavailable(f"the vLLM server at {url} wrote an unknown token {token}")
            forced = writer.forced()
            if forced is not None:
                if token != forced.ids[0]:
                    raise self._off_grammar(url, out)
                writer.advance(token)
                forced_count += 1
            else:
                if not writer.accepts(token):
                    raise self._off_grammar(url, out)
                for part in writer.advance(token):
                    logprobs[part] = logprobs.get(part, 0.0) + logprob
                generated += 1
            out.append(token)
        if len(out) > budget:  # the embedded engine stops at the token that crosses it too
            raise budget_exceeded(budget, self.vocab.text(out[: budget + 1]))
        if not writer.done:
            if choice.get("finish_reason") == "length":
                raise budget_exceeded(budget, self.vocab.text(out))
            raise self._off_grammar(url, out)
        return written_prediction(self.vocab.text(out), logprobs, generated, forced_count, 1)

    def _off_grammar(self, url: str, out: list[int]) -> BackendUnavailable:
        return BackendUnavailable(
            f"the vLLM server at {url} wrote tokens outside the debugger grammar after "
            f"{self.vocab.text(out)!r}: start it with `ndb serve-model`, which loads the grammar "
            "processor (the project installed in vLLM's environment)"
        )
