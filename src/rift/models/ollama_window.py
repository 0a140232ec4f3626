"""Ollama's OpenAI-compatible endpoint and the window it serves without saying so.

Ollama's `/v1` ignores the context size a client asks for and serves the server's
default (`OLLAMA_CONTEXT_LENGTH`) or the Modelfile's `num_ctx`, cutting a longer
conversation from the front with no error. rift says so once at startup, or, where
the window is known, budgets to it.
"""

from __future__ import annotations

from typing import Protocol

from msgspec.structs import replace

from rift.config.load import Config
from rift.events import Event, Info, Warning
from rift.models.http import make_client
from rift.models.registry import PROBE_TIMEOUT_S, Preflight, Route

OLLAMA_DEFAULT_CTX = 4096


class Bound(Protocol):
    """The model a session bound (the core's `ModelBinding`): its route, and the
    preflight whose budget this may lower."""

    route: Route
    info: Preflight


async def check_ollama_v1(config: Config, binding: Bound) -> list[Event]:
    """The startup notice about Ollama's `/v1` window, and the budget adjusted in
    `binding` when the served window is known and smaller. Nothing for other servers
    (one `/api/tags` asks, on an OpenAI-compatible server that is not llama.cpp's)."""
    route = binding.route
    if route.provider_kind != "openai" or binding.info.info.slots is not None:
        return []
    from rift.models import server_info  # only for an OpenAI-compatible server
    from rift.models.openai import OPENAI_API_URL  # loaded already: the route is OpenAI's

    if route.base_url.startswith(OPENAI_API_URL):
        return []
    if route.provider_name is not None and route.provider_name not in config.providers:
        return []  # a built-in hosted provider
    base = route.base_url
    tls = base.startswith("https:")
    async with make_client(PROBE_TIMEOUT_S, connect_timeout=PROBE_TIMEOUT_S, tls=tls) as client:
        if not await server_info.is_ollama(client, base):
            return []
        served = await server_info.ollama_num_ctx(client, base, route.wire_model)
    source = f"the num_ctx of {route.wire_model}'s Modelfile"
    if served is None and config.ollama_context_length:
        served, source = config.ollama_context_length, "OLLAMA_CONTEXT_LENGTH"
    budget = binding.info.num_ctx
    if served is None:
        root = server_info.root_of(base)
        return [
            Warning(
                f"{base} is Ollama's OpenAI-compatible endpoint: it ignores the context size"
                f" rift asks for and serves its default (OLLAMA_CONTEXT_LENGTH,"
                f" {OLLAMA_DEFAULT_CTX} tokens unless set), cutting longer conversations"
                f" silently. Use --host {root} (the native API, where rift sends num_ctx"
                f" {budget}), or start Ollama with OLLAMA_CONTEXT_LENGTH={budget} and set it"
                " where rift runs too"
            )
        ]
    if served >= budget:
        return []
    binding.info = replace(binding.info, num_ctx=served)
    return [
        Info(f"Ollama's /v1 serves {served} tokens ({source}): context budget {budget} → {served}")
    ]
