"""Which server a model name goes to, and whether the model there is fit to use.

Routing (reference notes, section 3.1): `provider/model` splits at the first
`/`; a configured provider wins, then the built-ins; any other name, slashes
and all (`hf.co/org/model`), is a bare name for the default host. The
*addressable* name keeps the prefix: it is what people see and type.

Preflight (sections 3.4, 3.5) asks the server about the model once, so that a
missing model or one without tool calling fails with a sentence instead of a
confusing 400 on the first turn, and so num_ctx fits the model.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx

from rift.config import Config
from rift.errors import ModelError, ModelNotUsable, ServerHTTPError
from rift.models.base import ModelInfo, Provider
from rift.models.http import make_client
from rift.paths import Paths

ProviderKind = Literal["ollama", "openai", "embedded"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
ADOPT_CTX_CAP = 131072
"""The most context a provider-routed model gets without an explicit num_ctx."""
PROBE_TIMEOUT_S = 2.5
EMBEDDED: Literal["embedded"] = "embedded"
EMBEDDED_NUM_CTX = 8192
"""The embedded model's num_ctx unless one is set explicitly."""
_BUILTIN_URLS = {"openai": OPENAI_BASE_URL}


@dataclass(frozen=True, slots=True)
class Route:
    """Where a model name leads."""

    provider_kind: ProviderKind
    base_url: str
    api_key: str | None
    wire_model: str
    """The name sent to the server (the prefix removed)."""
    addressable: str
    """The name as people type it, prefix kept."""
    provider_name: str | None = None
    """The configured or built-in provider, None for the default host."""


@dataclass(frozen=True, slots=True)
class Preflight:
    """What preflight settled: the model's info, the num_ctx to use, and why it changed."""

    info: ModelInfo
    num_ctx: int
    note: str
    """"num_ctx clamped A → B", "context budget A → B; /ctx overrides", or ""."""
    think: bool | None
    """None leaves thinking to the server; False for models that cannot think."""


def _host_route(name: str, host: str) -> Route:
    base = host.rstrip("/")
    kind: ProviderKind = "openai" if base.endswith("/v1") else "ollama"
    return Route(kind, base, None, name, name, None)


def resolve(model_name: str, config: Config) -> Route:
    """Route a model name.

    Raises:
        ModelNotUsable: an Anthropic provider, or a prefix with no model after it.
    """
    if model_name == EMBEDDED or model_name.startswith(EMBEDDED + "/"):
        wire = model_name.partition("/")[2]
        return Route(EMBEDDED, "", None, wire, model_name, None)
    prefix, slash, rest = model_name.partition("/")
    known = prefix in config.providers or prefix in _BUILTIN_URLS or prefix == "anthropic"
    if not slash or not known:
        return _host_route(model_name, config.host)
    if not rest:
        raise ModelNotUsable(f"no model name after '{prefix}/'")
    return _provider_route(prefix, rest, config)


def _provider_route(prefix: str, wire_model: str, config: Config) -> Route:
    """The route through a configured or built-in provider."""
    addressable = f"{prefix}/{wire_model}"
    provider = config.providers.get(prefix)
    if (provider.kind if provider else prefix) == "anthropic":
        raise ModelNotUsable("anthropic providers are not supported yet")
    if provider is None:
        return Route("openai", _BUILTIN_URLS[prefix], None, wire_model, addressable, prefix)
    base = provider.base_url.rstrip("/")
    if provider.kind == "ollama":
        return Route("ollama", base.removesuffix("/v1"), None, wire_model, addressable, prefix)
    return Route("openai", base, provider.api_key, wire_model, addressable, prefix)


def make_provider(
    route: Route,
    read_timeout: float,
    client: httpx.AsyncClient | None = None,
    cache_dir: Path | None = None,
) -> Provider:
    """The provider for a route; providers are imported only when chosen.

    `cache_dir` is where the embedded model is assembled (`Config.paths.cache_dir`).

    Raises:
        ModelNotUsable: the embedded model without the `rift[local]` extra.
    """
    if route.provider_kind == "ollama":
        from rift.models.ollama import OllamaProvider

        return OllamaProvider(route.base_url, read_timeout, client=client)
    if route.provider_kind == "openai":
        from rift.models.openai import OpenAIProvider

        return OpenAIProvider(route.base_url, route.api_key, read_timeout, client=client)
    from rift.models import local_weights  # embedded only: off every served model's path

    if not local_weights.runtime_installed():
        raise ModelNotUsable(
            f"the embedded model needs {local_weights.RUNTIME_MISSING}: "
            + local_weights.install_command()
        )
    from rift.models.embedded import EmbeddedProvider

    return EmbeddedProvider(cache_dir or Paths.from_env({}).cache_dir)


async def _not_found(provider: Provider, route: Route, exc: ServerHTTPError) -> ModelNotUsable:
    """The refusal for a missing model, listing what the server does have."""
    message = f"model '{route.addressable}' not usable: {exc.message}"
    try:
        names = await provider.list_models()
    except ModelError:
        return ModelNotUsable(message)
    listing = ", ".join(names) if names else "(none)"
    return ModelNotUsable(f"{message} — models on {provider.base_url}: {listing}")


async def preflight(
    provider: Provider, route: Route, num_ctx: int, num_ctx_explicit: bool
) -> Preflight:
    """Check the model exists and can call tools; settle num_ctx and the think flag.

    Raises:
        ModelNotUsable: the model is missing or lacks the "tools" capability.
        ModelError: the server could not be asked (unreachable, other HTTP errors).
    """
    try:
        info = await provider.show(route.wire_model)
    except ServerHTTPError as exc:
        if exc.status != 404:
            raise
        raise await _not_found(provider, route, exc) from exc
    if "tools" not in info.capabilities:
        raise ModelNotUsable(f"model '{route.addressable}' does not have the 'tools' capability")
    limit = info.context_length
    chosen, note = num_ctx, ""
    if limit and num_ctx > limit:
        chosen, note = limit, f"num_ctx clamped {num_ctx} → {limit}"
    elif route.provider_kind == EMBEDDED and not num_ctx_explicit:
        chosen = min(num_ctx, EMBEDDED_NUM_CTX)  # CPU prefill: a small window is the fast one
    elif route.provider_kind == "openai" and not num_ctx_explicit and limit and limit > num_ctx:
        chosen = min(limit, ADOPT_CTX_CAP)
        if chosen != num_ctx:
            note = f"context budget {num_ctx} → {chosen}; /ctx overrides"
    think = None if "thinking" in info.capabilities else False
    return Preflight(info=info, num_ctx=chosen, note=note, think=think)


def discovery_providers(config: Config, current_addressable: str) -> list[str]:
    """Provider names whose models discovery lists: configured ones plus the active built-in."""
    names = set(config.providers)
    prefix, slash, _ = current_addressable.partition("/")
    if slash and prefix in _BUILTIN_URLS:
        names.add(prefix)
    return sorted(names)


def _discovery_routes(config: Config, current_addressable: str) -> list[tuple[str, Route]]:
    """(name prefix, route) per server to probe, default host first."""
    routes = [("", _host_route("", config.host))]
    for name in discovery_providers(config, current_addressable):
        provider = config.providers.get(name)
        if provider is not None and provider.kind == "anthropic":
            continue
        routes.append((f"{name}/", _provider_route(name, "", config)))
    return routes


async def list_all_models(config: Config, current_addressable: str) -> list[str]:
    """Every addressable model: the default host's bare, then each provider's prefixed.

    Servers are asked one after another with a 2.5 s limit each; one that is
    unreachable or answers with an error is skipped. Duplicates are dropped,
    first occurrence kept.
    """
    found: list[str] = []
    async with make_client(PROBE_TIMEOUT_S, connect_timeout=PROBE_TIMEOUT_S) as client:
        for prefix, route in _discovery_routes(config, current_addressable):
            if route.provider_kind == EMBEDDED:
                continue
            provider = make_provider(route, PROBE_TIMEOUT_S, client=client)
            try:
                async with asyncio.timeout(PROBE_TIMEOUT_S):
                    names = await provider.list_models()
            except (ModelError, TimeoutError):
                continue
            found += [prefix + name for name in names]
    from rift.models import local_weights  # list_models only, never at startup

    found += [f"{EMBEDDED}/{spec.name}" for spec in local_weights.available(config.paths.cache_dir)]
    return list(dict.fromkeys(found))
