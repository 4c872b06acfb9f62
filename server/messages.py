"""The DAP messages the server reads and writes, as pydantic models.

Input is validated before the adapter sees it, so a handler works with typed arguments and a
client that sends the wrong shape gets an error response naming the field, never a crash. Field
names are Python's; on the wire they are the protocol's camelCase (``stop_on_entry`` is
``stopOnEntry``). Arguments a client adds beyond these (VS Code adds several) are ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from pydantic.alias_generators import to_camel


class DapModel(BaseModel):
    """Base of every message part: camelCase on the wire, unknown fields ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def dump(self) -> dict[str, Any]:
        """The wire form, leaving out fields that are not set."""
        return self.model_dump(by_alias=True, exclude_none=True)


def describe(err: ValidationError) -> str:
    """A one-line account of what is wrong with some arguments, field by field."""
    parts = []
    for problem in err.errors():
        where = ".".join(str(p) for p in problem["loc"]) or "arguments"
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


# ---- envelopes ----------------------------------------------------------------------------


class Request(DapModel):
    """A client's request; ``arguments`` are validated per command by the adapter."""

    seq: StrictInt
    type: Literal["request"]
    command: str = Field(min_length=1)
    arguments: dict[str, Any] | None = None


def response(request: Request, body: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "type": "response",
        "request_seq": request.seq,
        "success": True,
        "command": request.command,
    }
    if body is not None:
        message["body"] = body
    return message


def error_response(seq: int, command: str, text: str) -> dict[str, Any]:
    """A failed response; ``body.error`` makes VS Code show the text to the user."""
    return {
        "type": "response",
        "request_seq": seq,
        "success": False,
        "command": command,
        "message": text,
        "body": {"error": {"id": 1, "format": text.replace("{", "(").replace("}", ")")}},
    }


def event(name: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "event", "event": name}
    if body is not None:
        message["body"] = body
    return message


# ---- request arguments ----------------------------------------------------------------------


class NoArguments(DapModel):
    """For requests whose arguments the server does not use (threads, configurationDone...)."""


class InitializeArguments(DapModel):
    client_id: str | None = Field(None, alias="clientID")
    adapter_id: str | None = Field(None, alias="adapterID")
    lines_start_at1: bool = True
    columns_start_at1: bool = True
    path_format: str | None = None
    supports_invalidated_event: bool = False
    supports_progress_reporting: bool = False


class LaunchArguments(DapModel):
    """How to debug: which program, which call, which backend, and how to decode."""

    program: str = Field(min_length=1)
    entry: str | None = None
    stop_on_entry: bool = False
    backend: Literal["local", "vllm", "oracle"] = "local"
    model: str | None = None
    vllm_url: str | list[str] | None = None
    temperature: float = Field(0.0, ge=0)
    samples: int = Field(1, ge=1, le=64)
    check: int = Field(1, ge=1, le=32)
    seed: int | None = None
    max_tokens: int = Field(512, ge=1, le=8192)
    breakpoint_steps: int | None = Field(None, ge=0, le=500)  # None: the backend's default
    return_steps: int | None = Field(None, ge=0, le=500)  # None: the backend's default
    inverse: str | None = None
    cwd: str | None = None
    no_debug: bool = False  # ignored: nothing is ever run in a predicted session

    @property
    def vllm_urls(self) -> list[str]:
        if self.vllm_url is None:
            return []
        return [self.vllm_url] if isinstance(self.vllm_url, str) else list(self.vllm_url)


class RestartArguments(DapModel):
    arguments: LaunchArguments | None = None


class Source(DapModel):
    name: str | None = None
    path: str | None = None
    source_reference: int | None = None
    presentation_hint: Literal["normal", "emphasize", "deemphasize"] | None = None


class SourceBreakpoint(DapModel):
    line: int
    column: int | None = None
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None


class SetBreakpointsArguments(DapModel):
    source: Source
    breakpoints: list[SourceBreakpoint] | None = None
    lines: list[int] | None = None

    def requested(self) -> list[SourceBreakpoint]:
        """The breakpoints asked for, from ``breakpoints`` or the older ``lines`` field."""
        if self.breakpoints is not None:
            return self.breakpoints
        return [SourceBreakpoint(line=n) for n in self.lines or []]


class SetExceptionBreakpointsArguments(DapModel):
    filters: list[str] = Field(default_factory=list)


class ThreadArguments(DapModel):
    """next, stepIn, stepOut, stepBack, continue, reverseContinue, pause, exceptionInfo."""

    thread_id: StrictInt


class StackTraceArguments(DapModel):
    thread_id: StrictInt
    start_frame: int = Field(0, ge=0)
    levels: int = Field(0, ge=0)


class ScopesArguments(DapModel):
    frame_id: StrictInt


class SetExpressionArguments(DapModel):
    expression: str
    value: str
    frame_id: StrictInt | None = None


class RestartFrameArguments(DapModel):
    frame_id: StrictInt


class GotoTargetsArguments(DapModel):
    source: Source
    line: StrictInt


class GotoArguments(DapModel):
    thread_id: StrictInt
    target_id: StrictInt


class VariablesArguments(DapModel):
    variables_reference: StrictInt
    filter: Literal["indexed", "named"] | None = None
    start: int = Field(0, ge=0)
    count: int = Field(0, ge=0)


class SetVariableArguments(DapModel):
    variables_reference: StrictInt
    name: str
    value: str


class EvaluateArguments(DapModel):
    expression: str
    frame_id: StrictInt | None = None
    context: str | None = None


class SourceArguments(DapModel):
    source: Source | None = None
    source_reference: int


class CancelArguments(DapModel):
    request_id: int | None = None
    progress_id: str | None = None


class DisconnectArguments(DapModel):
    restart: bool = False
    terminate_debuggee: bool | None = None


# ---- response bodies ---------------------------------------------------------------------


# Exceptions the model predicts: every one raised, or the one that ends the run.
EXCEPTION_FILTERS: list[dict[str, Any]] = [
    {"filter": "raised", "label": "Raised Exceptions (predicted)", "default": False},
    {"filter": "uncaught", "label": "Uncaught Exceptions (predicted)", "default": True},
]


class Capabilities(DapModel):
    """What this adapter really does; nothing is announced that is not implemented."""

    supports_configuration_done_request: bool = True
    supports_step_back: bool = True
    supports_set_variable: bool = True
    supports_set_expression: bool = True
    supports_evaluate_for_hovers: bool = True
    supports_restart_request: bool = True
    supports_terminate_request: bool = True
    supports_conditional_breakpoints: bool = True
    supports_hit_conditional_breakpoints: bool = True
    supports_log_points: bool = True
    supports_exception_info_request: bool = True
    supports_cancel_request: bool = True
    supports_delayed_stack_trace_loading: bool = True
    supports_function_breakpoints: bool = False
    supports_goto_targets_request: bool = True
    supports_restart_frame: bool = True
    supports_completions_request: bool = False
    supports_data_breakpoints: bool = False
    supports_value_formatting_options: bool = False
    exception_breakpoint_filters: list[dict[str, Any]] = Field(
        default_factory=lambda: [dict(f) for f in EXCEPTION_FILTERS]
    )


class Thread(DapModel):
    id: int
    name: str


class StackFrame(DapModel):
    id: int
    name: str
    source: Source | None = None
    line: int
    column: int
    presentation_hint: Literal["normal", "label", "subtle"] | None = None


class Scope(DapModel):
    name: str
    variables_reference: int
    expensive: bool = False
    presentation_hint: str | None = None
    named_variables: int | None = None


class Variable(DapModel):
    name: str
    value: str
    type: str | None = None
    variables_reference: int = 0
    evaluate_name: str | None = None
    indexed_variables: int | None = None
    named_variables: int | None = None


class Breakpoint(DapModel):
    id: int
    verified: bool
    line: int | None = None
    message: str | None = None
    source: Source | None = None
