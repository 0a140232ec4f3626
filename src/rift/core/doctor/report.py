"""`rift doctor`: ask the configured server what rift needs to know, and say what to change.

What goes wrong with self-hosted servers is rarely "it is down": it is a context window
silently cut to the server's default, tool calls that come back as text, a model name the
server does not have. The checks stop at the first that makes the rest meaningless, and
the tool probe is a real chat request through rift's own provider, so it reports what a
turn would see. `brief_check` is the part that costs no chat request, run on the side
after a switch to another server.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Literal

from msgspec import Struct, field
from msgspec.structs import replace

from rift.config.load import Config
from rift.core.doctor.speculation import speculation_advice
from rift.core.loop import hardening
from rift.errors import ModelError, ServerHTTPError, ServerUnreachable
from rift.models import registry, server_info
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    ModelInfo,
    Provider,
    ThinkingDelta,
    ToolCall,
    Usage,
)
from rift.models.http import Client, make_client
from rift.models.server_info import LlamaProps
from rift.text.hygiene import terminal_safe, without_credentials

Status = Literal["ok", "warn", "fail", "info"]
CONNECT_TIMEOUT_S = 3.0
DEADLINE_S = 30.0
"""The whole of `rift doctor` gives up after this (env RIFT_DOCTOR_DEADLINE_S): a server
that trickles a byte every 2 s is never idle long enough for the read timeout."""
DEADLINE_ENV = "RIFT_DOCTOR_DEADLINE_S"
BRIEF_TIMEOUT_S = 3.0
"""The quick checks after a server switch give up after this: a slow host is not nagged."""
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "report_number",
        "description": "Report a number to the user.",
        "parameters": {
            "type": "object",
            "properties": {"number": {"type": "integer", "description": "the number"}},
            "required": ["number"],
        },
    },
}
PROBE_PROMPT = "Call the report_number tool with number 7. Do not answer in text."
PROBE_MAX_TOKENS = 96
OLLAMA_OPENAI_DEFAULT_CTX = 4096
"""Ollama's default window (OLLAMA_CONTEXT_LENGTH unset), all its OpenAI endpoint serves."""


class Check(Struct, frozen=True):
    """One line of the report."""

    name: str
    status: Status
    detail: str
    fix: str = ""
    """What to change, when something should change."""


class Report(Struct):
    """Every check in order; `failed` is the exit status's source."""

    target: str
    checks: list[Check] = field(default_factory=list)

    def add(self, name: str, status: Status, detail: str, fix: str = "") -> None:
        self.checks.append(Check(name, status, detail, fix))

    @property
    def failed(self) -> bool:
        return any(c.status == "fail" for c in self.checks)

    def render(self) -> str:
        lines = [f"rift doctor: {self.target}"]
        width = max((len(c.name) for c in self.checks), default=0)
        for check in self.checks:
            label = check.status.upper() if check.status == "fail" else check.status
            lines.append(f"  {label:<5} {check.name:<{width}}  {check.detail}")
        fixes = [c.fix for c in self.checks if c.fix]
        if fixes:
            lines.append("what to change:")
            lines += [f"  - {fix}" for fix in fixes]
        problems = sum(c.status == "fail" for c in self.checks)
        warnings = sum(c.status == "warn" for c in self.checks)
        if problems:
            lines.append(f"{problems} problem(s), {warnings} warning(s)")
        else:
            lines.append(f"rift can use this server ({warnings} warning(s))")
        # Server text (model names, errors) and the user's URL are in these lines: no
        # password from the URL, and no terminal escape sequence, reaches the screen.
        return terminal_safe(without_credentials("\n".join(lines)))


class _Server(Struct, frozen=True):
    """What the first questions established about the server."""

    kind: str
    """"Ollama", "llama.cpp server", "Ollama (OpenAI-compatible endpoint)", ..."""
    props: LlamaProps | None
    ollama_openai: bool


def deadline_s() -> float:
    """The overall deadline: `RIFT_DOCTOR_DEADLINE_S` when it is a positive number."""
    try:
        value = float(os.environ.get(DEADLINE_ENV, ""))
    except ValueError:
        return DEADLINE_S
    return value if value > 0 else DEADLINE_S


async def run_doctor(config: Config) -> Report:
    """Check the configured host and model within `deadline_s()`; never raises for a
    server's failure."""
    if config.hosts:  # a pool: every endpoint (pool/doctor.py)
        from rift.pool.doctor import pool_checks

        report = Report(target=f"pool of {len(config.hosts)} server(s)")
        for check in await pool_checks(config):
            report.add(*check)
        return report
    route = registry.resolve(config.model, config)
    if route.provider_kind == registry.EMBEDDED:
        report = Report(target=f"model {route.addressable} (in-process)")
        report.add("server", "info", "the embedded model runs inside rift: no server to check")
        return report
    report = Report(target=f"model {route.wire_model} at {route.base_url}")
    limit = deadline_s()
    try:
        async with asyncio.timeout(limit):
            await _checks(report, config, route)
    except TimeoutError:
        report.add(
            "deadline",
            "fail",
            f"the server did not finish answering within {limit:g} s",
            f"check that the server is not overloaded or stalled; {DEADLINE_ENV} sets the limit",
        )
    return report


async def _checks(report: Report, config: Config, route: registry.Route) -> None:
    """`run_doctor`'s checks, adding to `report` as each finishes."""
    route, _ = await registry.detect_protocol(route, replace(config, host_explicit=True))
    report.target = f"model {route.wire_model} at {route.base_url}"
    tls = route.base_url.startswith("https:")
    client = make_client(config.read_timeout, connect_timeout=CONNECT_TIMEOUT_S, tls=tls)
    provider = registry.make_provider(route, config.read_timeout, client=client)
    try:
        await _diagnose(report, config, route, provider, client)
    finally:
        await provider.aclose()
        await client.aclose()


async def brief_check(config: Config, route: registry.Route, info: ModelInfo) -> list[Check]:
    """The checks that found something to change on a server just switched to: what it says
    about itself (window, chat template, slots), with no chat request, since it runs beside
    the conversation; a server slower than BRIEF_TIMEOUT_S yields [] rather than a guess."""
    if route.provider_kind == registry.EMBEDDED:
        return []
    report = Report(target=route.base_url)
    tls = route.base_url.startswith("https:")
    client = make_client(BRIEF_TIMEOUT_S, connect_timeout=BRIEF_TIMEOUT_S, tls=tls)
    try:
        async with asyncio.timeout(BRIEF_TIMEOUT_S):
            server = await _identify(route, client)
    except TimeoutError:
        return []
    finally:
        await client.aclose()
    _context(report, config, route, info, server)
    props = server.props
    if props is not None and props.chat_template and not props.template_tools:
        report.add(
            "tool calls",
            "warn",
            "the model's chat template has no tool support: calls come back as text at best",
            "serve a model whose template renders tools, with llama-server --jinja",
        )
    _features(report, route, info, server)
    return [c for c in report.checks if c.status in ("warn", "fail")]


async def _diagnose(
    report: Report, config: Config, route: registry.Route, provider: Provider, client: Client
) -> None:
    started = time.monotonic()
    try:
        names = await provider.list_models()
    except ServerUnreachable as exc:
        report.add(
            "server",
            "fail",
            f"cannot reach {route.base_url} ({exc.detail or 'no connection'})",
            "start the server, or point rift at it with --host URL (env RIFT_HOST;"
            " a URL ending in /v1 is OpenAI-compatible)",
        )
        return
    except ModelError as exc:
        report.add("server", "fail", f"{route.base_url} answered, but not as a model server: {exc}")
        return
    elapsed_ms = (time.monotonic() - started) * 1000
    server = await _identify(route, client)
    report.add("server", "ok", f"{server.kind} answered in {elapsed_ms:.0f} ms")
    picked = route.wire_model not in names and not config.model_explicit and bool(names)
    if picked:
        chosen, said = registry.only_model(names, route.base_url)  # none named (issue 44)
        if chosen is None:
            report.add("model", "fail", said)
            return
        route = replace(route, wire_model=chosen, addressable=chosen)
        report.add("model", "ok", said)
    if route.wire_model not in names:
        listing = ", ".join(names[:8]) or "(none)"
        fix = f"run rift with -m {names[0]}" if names else "load a model on the server"
        report.add("model", "fail", f"'{route.wire_model}' is not served; models: {listing}", fix)
        return
    if not picked:
        report.add("model", "ok", f"'{route.wire_model}' is served ({len(names)} model(s))")
    try:
        info = await provider.show(route.wire_model)
    except ModelError as exc:
        report.add("model info", "fail", f"the server could not describe the model: {exc}")
        return
    _context(report, config, route, info, server)
    await _tool_probe(report, config, route, provider, server)
    _features(report, route, info, server)
    if server.props is not None:  # llama.cpp's server: is it drafting tokens?
        advice = await speculation_advice(client, route.base_url)
        if advice is not None:
            report.add("speculation", *advice)


async def _identify(route: registry.Route, client: Client) -> _Server:
    """Which server this is, from the endpoints only some servers have."""
    if route.provider_kind == "ollama":
        return _Server("Ollama (native API)", None, ollama_openai=False)
    if route.provider_kind != "openai":
        return _Server(f"{route.provider_kind} API", None, ollama_openai=False)
    props = await server_info.llama_props(client, route.base_url)
    if props is not None:
        build = f", build {props.build}" if props.build else ""
        return _Server(f"llama.cpp server (OpenAI-compatible API{build})", props, False)
    if await server_info.is_ollama(client, route.base_url):
        return _Server("Ollama (OpenAI-compatible endpoint)", None, ollama_openai=True)
    return _Server("OpenAI-compatible server (vLLM, LM Studio or similar)", None, False)


def _context(
    report: Report, config: Config, route: registry.Route, info: ModelInfo, server: _Server
) -> None:
    """The window the server really serves against the one rift will fill."""
    budget = config.num_ctx
    props = server.props
    if props is not None and props.n_ctx:
        slots = props.total_slots or 1
        per_slot = f"{props.n_ctx} tokens per slot ({slots} slot(s), -c {props.n_ctx * slots})"
        if budget > props.n_ctx:
            report.add(
                "context",
                "warn",
                f"the server serves {per_slot}; rift budgets {budget} and clamps to"
                f" {props.n_ctx}, compacting sooner",
                f"for the full {budget}, restart llama-server with -c {budget * slots} -np {slots}",
            )
        else:
            used = budget if config.num_ctx_explicit else min(props.n_ctx, registry.ADOPT_CTX_CAP)
            report.add("context", "ok", f"the server serves {per_slot}; rift uses {used}")
        return
    if server.ollama_openai:
        report.add(
            "context",
            "warn",
            "Ollama's OpenAI-compatible endpoint ignores the window rift asks for and serves"
            f" its default (OLLAMA_CONTEXT_LENGTH, {OLLAMA_OPENAI_DEFAULT_CTX} tokens unless set)",
            f"use --host {server_info.root_of(route.base_url)} (the native API, where rift sets"
            f" num_ctx per request), or start Ollama with OLLAMA_CONTEXT_LENGTH={budget}",
        )
        return
    limit = info.context_length
    if limit and budget > limit:
        report.add(
            "context",
            "warn",
            f"the model takes at most {limit} tokens; rift is set to {budget} and clamps to it",
            f"run rift with --num-ctx {limit}",
        )
    elif route.provider_kind == "ollama":
        most = f" (the model takes up to {limit})" if limit else ""
        report.add("context", "ok", f"rift asks for num_ctx {budget} with every request{most}")
    else:
        most = f"the server reports {limit}" if limit else "the server does not report it"
        report.add("context", "ok", f"rift uses {min(budget, limit or budget)} tokens; {most}")


async def _tool_probe(
    report: Report, config: Config, route: registry.Route, provider: Provider, server: _Server
) -> None:
    """One tiny request with one tool: structured call, text call, or none."""
    request = ChatRequest(
        model=route.wire_model,
        messages=[
            {"role": "system", "content": "You are a tool-calling assistant."},
            {"role": "user", "content": PROBE_PROMPT},
        ],
        tools=[PROBE_TOOL],
        num_ctx=min(config.num_ctx, 4096),
        temperature=0.0,
        think=False,
        num_predict=PROBE_MAX_TOKENS,
    )
    started = time.monotonic()
    first = 0.0
    calls: list[ToolCall] = []
    content: list[str] = []
    usage: Usage | None = None
    thought = False
    try:
        async for event in provider.stream_chat(request):
            if isinstance(event, ContentDelta | ThinkingDelta | ToolCall) and not first:
                first = time.monotonic()
            if isinstance(event, ToolCall):
                calls.append(event)
            elif isinstance(event, ContentDelta):
                content.append(event.text)
            elif isinstance(event, ThinkingDelta):
                thought = True
            elif isinstance(event, Usage):
                usage = event
    except ServerHTTPError as exc:
        report.add(
            "tool calls",
            "fail",
            f"the server refused a request with tools: {exc}",
            _tools_fix(exc.message, server),
        )
        return
    except ModelError as exc:
        report.add("tool calls", "fail", f"the probe request failed: {exc}")
        return
    text = "".join(content)
    if "<think>" in text or thought:
        report.add("thinking", "info", "the model thought before answering the probe")
    if any(c.name == "report_number" for c in calls):
        report.add("tool calls", "ok", "the model called the probe tool (structured tool_calls)")
    elif hardening.recover_textual_tool_calls(text, {"report_number"}) or "<tool_call>" in text:
        report.add(
            "tool calls",
            "warn",
            "the call came back as text in the reply; rift recovers it, but structured calls"
            " are more reliable",
            _text_calls_fix(server),
        )
    else:
        said = " ".join(text.split())[:80] or "(nothing)"
        report.add("tool calls", "warn", f"the model answered without calling the tool: {said}")
    if usage is not None and usage.prompt_tokens and first:
        seconds = max(first - started, 1e-3)
        report.add(
            "prompt speed",
            "info",
            f"first token after {seconds:.2f} s for {usage.prompt_tokens} prompt tokens"
            f" (~{usage.prompt_tokens / seconds:.0f} tokens/s; a cached prefix reads faster)",
        )


def _tools_fix(message: str, server: _Server) -> str:
    if "jinja" in message.lower():
        return "start llama-server with --jinja (it uses the model's own chat template for tools)"
    if server.kind.startswith("Ollama"):
        return "pick a model whose `ollama show` lists the tools capability"
    return "serve the model with a chat template that supports tools"


def _text_calls_fix(server: _Server) -> str:
    if server.props is not None:
        return (
            "start llama-server with --jinja, if it is not, so the model's template parses"
            " tool calls (small models may write them as text anyway; rift runs those)"
        )
    if server.kind.startswith("vLLM") or "vLLM" in server.kind:
        return "start vLLM with --enable-auto-tool-choice and a --tool-call-parser"
    return "serve the model with a template or parser that returns structured tool calls"


def _features(report: Report, route: registry.Route, info: ModelInfo, server: _Server) -> None:
    """Thinking, vision and parallel slots: facts, with a note where they matter."""
    props = server.props
    if not any(c.name == "thinking" for c in report.checks):
        thinks = props.template_thinks if props is not None else "thinking" in info.capabilities
        said = "the model can think" if thinks else "no thinking"
        report.add("thinking", "info", said)
    vision = props.vision if props is not None else "vision" in info.capabilities
    report.add("vision", "info", "images are accepted" if vision else "no image input")
    if props is not None and props.total_slots:
        report.add(
            "parallel slots",
            "info" if props.total_slots > 1 else "warn",
            f"{props.total_slots} slot(s): at most that many requests run at once",
            ""
            if props.total_slots > 1
            else "start llama-server with -np 2 (or more) so a"
            " sub-agent does not wait for, or evict, the main conversation",
        )
    elif route.provider_kind == "ollama" or server.ollama_openai:
        report.add("parallel slots", "info", "set on the server by OLLAMA_NUM_PARALLEL")
