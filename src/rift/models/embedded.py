"""The embedded model: a small GGUF run in-process by llama.cpp (the `local` extra), what
rift uses when no model server is running, so a fresh install works with nothing else
set up. One loaded model per process keeps the conversation prefix in its KV cache
between iterations; sampling runs on a worker thread feeding an asyncio queue, so
content streams token by token. With tools offered, a grammar admits exactly one call
or a `final_answer` (`embedded_calls.py`), whose text is streamed as content.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec import Struct

from rift.errors import ModelError, ModelNotUsable, StreamError
from rift.fs.paths import Paths
from rift.models import embedded_backends, local_weights, repetition
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    ModelEvent,
    ModelInfo,
    ProviderTraits,
    StreamDone,
    ToolCall,
    Usage,
)
from rift.models.embedded_backends import Backend
from rift.models.embedded_calls import (
    ANSWER_SCHEMA,
    FINAL_ANSWER,
    FinalAnswerStream,
    final_admitted,
    parse_reply,
    step_tools,
    tool_choice_schema,
    tool_names_schema,
)
from rift.models.embedded_whole import fence_closed, whole_file_call, whole_file_path

if TYPE_CHECKING:
    from rift.models.server import Connection

log = logging.getLogger("rift.embedded")
_NAME = re.compile(r'"name"\s*:\s*"([^"]*)"')
CONTEXT_LENGTH = 32768
"""What the Qwen2.5-Coder models were trained for; rift's default budget is smaller."""
MAX_OUTPUT_TOKENS = 2048
_REPEAT_TAIL = max(repetition.MIN_SPAN, repetition.MAX_PERIOD * repetition.MIN_TIMES)
_FINAL_TOOL = {
    "type": "function",
    "function": {
        "name": FINAL_ANSWER,
        "description": "Reply to the user and end your turn: the answer, or one sentence "
        "saying what you changed. Call it only when the work is done.",
        "parameters": ANSWER_SCHEMA,
    },
}

_lock = threading.Lock()
"""One generation at a time: a Llama context is not thread-safe."""
_loaded: dict[tuple[str, int], Backend] = {}


class _Job(Struct, frozen=True):
    """One generation, as the worker thread needs it."""

    path: Path
    request: ChatRequest
    constrain: bool
    whole: bool = False
    """A whole-file request: generation stops once the file's fence closes."""


class EmbeddedProvider:
    """The in-process model (see the module docstring)."""

    TRAITS: ClassVar[ProviderTraits] = ProviderTraits(small_model=True)

    @classmethod
    def connect(cls, to: Connection) -> EmbeddedProvider:
        """The registry's constructor; refuses without the `rift[local]` runtime."""
        if not local_weights.runtime_installed():
            raise ModelNotUsable(
                f"the embedded model needs {local_weights.RUNTIME_MISSING}: "
                + local_weights.install_command()
            )
        return cls(to.cache_dir or Paths.from_env({}).cache_dir)

    def __init__(self, cache_dir: Path, constrain: bool = True) -> None:
        self.cache_dir = cache_dir
        self.constrain = constrain

    @property
    def base_url(self) -> str:
        return "embedded"

    async def list_models(self) -> list[str]:
        return [f"embedded/{spec.name}" for spec in local_weights.available(self.cache_dir)]

    async def show(self, model: str) -> ModelInfo:
        """Assembles the weights on first use, so a missing chunk fails at startup."""
        self._require_runtime()
        spec = local_weights.pick(model, self.cache_dir)
        await asyncio.to_thread(local_weights.assemble, spec, self.cache_dir)
        return ModelInfo(
            name=f"embedded/{spec.name}",
            capabilities=frozenset({"tools"}),
            context_length=CONTEXT_LENGTH,
        )

    async def aclose(self) -> None:
        """Nothing to release: the loaded model is kept for the rest of the process."""

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ModelEvent]:
        self._require_runtime()
        spec = local_weights.pick(request.model, self.cache_dir)
        path = await asyncio.to_thread(local_weights.assemble, spec, self.cache_dir)
        whole = whole_file_path(request.messages)  # asked for a file whole: plain text, fenced
        constrain = self.constrain and bool(request.tools) and not whole
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        stop = threading.Event()
        loop = asyncio.get_running_loop()

        def put(kind: str, payload: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
                loop.call_soon_threadsafe(queue.put_nowait, (kind, payload))

        worker = threading.Thread(
            target=_work, args=(_Job(path, request, constrain, bool(whole)), put, stop), daemon=True
        )
        worker.start()
        reply = _ReplyAssembler(constrain, offered=bool(request.tools), whole=whole)
        try:
            while True:
                kind, payload = await queue.get()
                if kind == "text":
                    for event in reply.feed(payload):
                        yield event
                elif kind == "usage":
                    for event in reply.finish():
                        yield event
                    yield payload
                elif kind == "error":
                    raise payload
                else:
                    yield StreamDone(reason=str(payload))
                    return
        finally:
            stop.set()  # cancelled or closed early: the worker stops at its next token

    @staticmethod
    def _require_runtime() -> None:
        if not local_weights.runtime_installed():
            raise ModelNotUsable(
                f"the embedded model needs {local_weights.RUNTIME_MISSING}; install it with "
                f"{local_weights.install_command()}"
            )


# ------------------------------------------------------------ the event side


class _ReplyAssembler:
    """Turns generated text into content deltas and, at the end, tool calls."""

    def __init__(self, constrained: bool, offered: bool, whole: str = "") -> None:
        self.constrained = constrained
        self.offered = offered
        self.whole = whole
        """The file asked for whole: a fenced reply becomes a `write` of it."""
        self.text = ""
        self.shown = ""
        self.final = FinalAnswerStream()

    def feed(self, piece: str) -> Iterator[ModelEvent]:
        self.text += piece
        if self.constrained:
            delta = self.final.feed(self.text)
        elif self.whole:
            delta = ""  # the file, not a reply: it arrives as a write call at the end
        elif not self.offered or not _may_be_call(self.text):
            delta = self.text[len(self.shown) :]
        else:
            delta = ""  # it may turn out to be a textual tool call: hold it back
        if delta:
            self.shown += delta
            yield ContentDelta(delta)

    def finish(self) -> Iterator[ModelEvent]:
        content, calls = parse_reply(self.text) if self.offered else (self.text, [])
        if self.whole and not _writes_of(calls, self.whole):
            # Asked for one file whole, only its write answers. A call written as text (a
            # `read` of the file it already has) is not run, nor taken for the file.
            content, calls = (self.text, []) if calls else whole_file_call(self.text, self.whole)
        if self.constrained and not calls and not self.final.active and content == self.text:
            calls = _unparsed_call(self.text)
            content = "" if calls else content
        if content.startswith(self.shown):
            rest = content[len(self.shown) :]
            if rest:
                self.shown = content
                yield ContentDelta(rest)
        yield from calls


def _writes_of(calls: list[ToolCall], path: str) -> bool:
    """`calls` are all writes of `path` (and there is at least one)."""
    return bool(calls) and all(
        c.name == "write" and (c.arguments or {}).get("path") == path for c in calls
    )


def _may_be_call(text: str) -> bool:
    head = text.lstrip()
    return head.startswith(("{", "[")) or "```" in text or "<tool_call>" in text


def _unparsed_call(text: str) -> list[ToolCall]:
    """Grammar output that does not parse was cut off (max tokens, or a repetition
    stopped): a call with invalid arguments, so the model reads why and tries again."""
    head = text.lstrip()
    if not head.startswith("{"):
        return []
    named = _NAME.search(head)
    name = named.group(1) if named else "unknown"
    return [ToolCall(id=None, name=name, arguments=None, raw_arguments=text)]


# ------------------------------------------------------------ the worker side


def _work(job: _Job, put: Any, stop: threading.Event) -> None:
    """Runs on the worker thread: load (once), render, sample, report."""
    try:
        with _lock:
            runtime = _runtime(job.path, job.request.num_ctx)
            _generate(runtime, job, put, stop)
    except ModelError as exc:
        put("error", exc)
    except Exception as exc:  # llama_cpp raises plain exceptions; keep the traceback, re-raise
        log.exception("embedded generation failed")
        put("error", StreamError(f"the embedded model failed: {exc!r}"))


def _runtime(path: Path, n_ctx: int) -> Backend:
    """The process's one loaded model; a different file or n_ctx replaces it."""
    key = (str(path), n_ctx)
    runtime = _loaded.get(key)
    if runtime is not None:
        return runtime
    _unload()  # drop the old one first: two models would double the memory
    runtime = embedded_backends.load(path, n_ctx)
    _loaded[key] = runtime
    atexit.register(_unload)  # close while the runtime's globals still exist (no __del__ noise)
    return runtime


def _unload() -> None:
    for runtime in _loaded.values():
        with contextlib.suppress(Exception):  # best effort at interpreter exit
            runtime.close()
    _loaded.clear()


def _generate(runtime: Backend, job: _Job, put: Any, stop: threading.Event) -> None:
    request = job.request
    tools = [*request.tools, _FINAL_TOOL] if job.constrain else request.tools
    messages = _template_messages(request.messages)
    prompt = runtime.tokenize(runtime.render(messages, tools or None))
    room = runtime.n_ctx() - len(prompt)
    if room < 16:
        raise StreamError(
            f"the prompt ({len(prompt)} tokens) does not fit the embedded model's context "
            f"({runtime.n_ctx()}); /compact or raise --num-ctx"
        )
    schema = None
    if job.constrain:
        admitted = step_tools(request.tools, request.messages)
        final = final_admitted(request.messages)
        schema = (tool_choice_schema(admitted, final), tool_names_schema(admitted, final))
    # A whole-file request carries its own cap, sized to the file (core/loop/parts/wholefile.py).
    max_tokens = min(room, request.num_predict or MAX_OUTPUT_TOKENS)
    temperature = 0.2 if request.temperature is None else request.temperature
    if hasattr(runtime, "speculative"):  # cyllama: prompt lookup for text copied from the prompt
        runtime.speculative = job.whole or bool(_COPYING & _tool_names(request.tools))
    pieces = runtime.stream(
        prompt, max_tokens, temperature, schema, _opening(runtime, messages, tools, prompt)
    )
    output: list[str] = []
    started, first = time.monotonic(), 0.0
    reason = "stop"
    watch = _RepeatWatch()
    try:
        for piece in pieces:
            if stop.is_set():
                return
            first = first or time.monotonic()
            output.append(piece)
            put("text", piece)
            if watch.looping(piece):
                reason = "repetition"
                break
            if job.whole and "`" in piece and fence_closed("".join(output)):
                break  # the file is complete: what a small model says after it is not needed
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                close()
    produced = len(runtime.tokenize("".join(output))) + 1
    if reason == "stop" and produced > max_tokens:
        reason = "length"
    seconds = time.monotonic() - first if first else 0.0
    prefill_s = (first or time.monotonic()) - started
    log.debug(
        "embedded (%s): prompt %d tok, first token after %.2f s, %d tok in %.2f s",
        runtime.name,
        len(prompt),
        prefill_s,
        produced,
        seconds,
    )
    reused = int(getattr(runtime, "reused", 0))  # cyllama counts what its cache held
    usage = Usage(
        prompt_tokens=len(prompt),
        output_tokens=produced,
        eval_duration_s=seconds,
        prefill_tokens=len(prompt) - reused,
        prefill_s=prefill_s,
        cached_tokens=reused,
    )
    put("usage", usage)
    put("done", reason)


_COPYING = {"edit", "write"}  # their arguments mostly repeat text already in the prompt


def _tool_names(tools: list[dict[str, Any]]) -> set[str]:
    return {str(t.get("function", {}).get("name", "")) for t in tools if isinstance(t, dict)}


def _opening(
    runtime: Backend, messages: list[dict[str, Any]], tools: list[Any], prompt: list[int]
) -> int:
    """How many tokens of `prompt` are its system message and tools: the part that the next
    task, in another process, will very likely start with too (see PrefixStore)."""
    if not messages or messages[0]["role"] != "system":
        return 0
    head = runtime.tokenize(runtime.render(messages[:1], tools or None))
    return embedded_backends.common_prefix(head, prompt, len(prompt))


class _RepeatWatch:
    """Stops a generation that repeats itself (models/repetition.py) instead of letting
    it run to the token cap, minutes on a CPU."""

    def __init__(self) -> None:
        self.tail = ""
        self.unchecked = 0

    def looping(self, piece: str) -> bool:
        self.tail = (self.tail + piece)[-_REPEAT_TAIL:]
        self.unchecked += len(piece)
        if self.unchecked < repetition.CHECK_EVERY:
            return False
        self.unchecked = 0
        return repetition.repeating_period(self.tail) > 0


def _template_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Neutral messages in the OpenAI shape that Hugging Face chat templates expect."""
    out: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message["role"], "content": message.get("content", "")}
        if message.get("tool_calls"):
            item["tool_calls"] = [
                {
                    "id": call.get("id") or f"call_{i}",
                    "type": "function",
                    "function": {
                        "name": call["function"]["name"],
                        "arguments": call["function"].get("arguments") or {},
                    },
                }
                for i, call in enumerate(message["tool_calls"])
            ]
        if message["role"] == "tool":
            item["name"] = message.get("tool_name", "")
            item["tool_call_id"] = message.get("tool_call_id", "")
        out.append(item)
    return out
