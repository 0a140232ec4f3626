"""Which server a model name goes to, and whether the model there is fit to use.

`provider/model` splits at the first `/`: a configured provider wins, then the
built-ins; any other name (`hf.co/org/model`) is a bare name for the default host.
Each provider kind's class (`PROVIDER_CLASSES`) declares `ProviderTraits`, which the
core reads instead of comparing kinds. Preflight asks the server about the model once,
so a missing model or one without tool calling fails with a sentence, not a 400.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import ClassVar, Literal, Protocol, cast

from msgspec import Struct
from msgspec.structs import replace

from rift.config.load import Config
from rift.errors import ModelError, ModelNotUsable, ServerHTTPError
from rift.models import sizes, thinking
from rift.models.base import ModelInfo, Provider, ProviderTraits, Reasoning
from rift.models.http import Client, lists, make_client
from rift.models.server import Connection

ProviderKind = str
"""A key of `PROVIDER_CLASSES`."""

PROVIDER_CLASSES: dict[ProviderKind, str] = {
    "ollama": "rift.models.ollama:OllamaProvider",
    "openai": "rift.models.openai:OpenAIProvider",
    "anthropic": "rift.models.anthropic:AnthropicProvider",
    "embedded": "rift.models.embedded:EmbeddedProvider",
}
"""Kind → provider class, imported only when a route of that kind is used."""
SERVER_KINDS = ("anthropic", "ollama", "openai")
"""The kinds a configured provider may name (the embedded model is not a server)."""

OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"
ADOPT_CTX_CAP = 131072
"""The most context a provider-routed model gets without an explicit num_ctx."""
PROBE_TIMEOUT_S = 2.5
EMBEDDED: Literal["embedded"] = "embedded"
EMBEDDED_NUM_CTX = 8192
"""The embedded model's num_ctx unless one is set explicitly."""
_BUILTINS: dict[str, tuple[str, ProviderKind]] = {
    "openai": (OPENAI_BASE_URL, "openai"),
    "anthropic": (ANTHROPIC_BASE_URL, "anthropic"),
}
"""Providers that need no config entry: name → (base URL, kind); keys come from
`Config.builtin_keys` (OPENAI_API_KEY, ANTHROPIC_API_KEY)."""


class _ProviderClass(Protocol):
    """What the registry needs of a provider class (see `PROVIDER_CLASSES`)."""

    TRAITS: ClassVar[ProviderTraits]

    @classmethod
    def connect(cls, to: Connection) -> Provider: ...


def provider_class(kind: ProviderKind) -> type[_ProviderClass]:
    """The class for a kind, imported on first use."""
    module, _, name = PROVIDER_CLASSES[kind].partition(":")
    return cast(type[_ProviderClass], getattr(importlib.import_module(module), name))


class Route(Struct, frozen=True):
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

    @property
    def traits(self) -> ProviderTraits:
        """What this kind of provider is like (small model, truncation, vision, thinking)."""
        return provider_class(self.provider_kind).TRAITS

    @property
    def small(self) -> bool:
        """A small model, in-process or named so (`qwen2.5-coder:1.5b`): driven with the
        small-model format (core/loop/preread.py, wholefile.py; models/sizes.py)."""
        return self.traits.small_model or sizes.named_small(self.wire_model)

    @property
    def local(self) -> bool:
        """A model on the default host or in-process: nothing is billed for it."""
        return self.provider_name is None


class Preflight(Struct, frozen=True):
    """What preflight settled: the model's info, the num_ctx to use, and why it changed."""

    info: ModelInfo
    num_ctx: int
    note: str
    """"num_ctx clamped A → B", "context budget A → B; /ctx overrides", or ""."""
    think: Reasoning
    """None leaves thinking to the server; False for models that cannot think; True or
    an effort level to ask for it (models/thinking.py)."""

    @property
    def can_think(self) -> bool:
        return "thinking" in self.info.capabilities

    @property
    def vision(self) -> bool:
        """The model reports "vision" (the route's traits say whether images can travel)."""
        return "vision" in self.info.capabilities


def _host_route(name: str, host: str) -> Route:
    base = host.rstrip("/")
    kind: ProviderKind = "openai" if base.endswith("/v1") else "ollama"
    return Route(kind, base, None, name, name, None)


def resolve(model_name: str, config: Config) -> Route:
    """Route a model name.

    Raises:
        ModelNotUsable: a prefix with no model after it, or a provider of unknown kind.
    """
    if model_name == EMBEDDED or model_name.startswith(EMBEDDED + "/"):
        wire = model_name.partition("/")[2]
        return Route(EMBEDDED, "", None, wire, model_name, None)
    prefix, slash, rest = model_name.partition("/")
    known = prefix in config.providers or prefix in _BUILTINS
    if not slash or not known:
        return _host_route(model_name, config.host)
    if not rest:
        raise ModelNotUsable(f"no model name after '{prefix}/'")
    return _provider_route(prefix, rest, config)


def _provider_route(prefix: str, wire_model: str, config: Config) -> Route:
    """The route through a configured or built-in provider."""
    addressable = f"{prefix}/{wire_model}"
    provider = config.providers.get(prefix)
    if provider is None:
        base, kind = _BUILTINS[prefix]
        key = config.builtin_keys.get(prefix)
        return Route(kind, base, key, wire_model, addressable, prefix)
    if provider.kind not in SERVER_KINDS:
        raise ModelNotUsable(
            f"provider '{prefix}' has unknown kind '{provider.kind}'"
            f" (valid kinds: {', '.join(SERVER_KINDS)})"
        )
    base = provider.base_url.rstrip("/")
    if provider.kind == "ollama":
        base = base.removesuffix("/v1")  # the native API lives beside /v1, not under it
    return Route(provider.kind, base, provider.api_key, wire_model, addressable, prefix)


# ------------------------------------------------------------ protocol detection

_DETECTED: dict[str, ProviderKind] = {}
"""Host base URL → the kind its probe found, so a host is probed (and noted) once."""


async def detect_protocol(route: Route, config: Config) -> tuple[Route, str]:
    """The route with the wire format a named host without `/v1` really speaks (Ollama
    answers `/api/tags`; llama.cpp, vLLM and LM Studio `/v1/models`), and a note the first
    time a host turns out to be OpenAI-compatible. Only a host somebody named is probed:
    the default one is Ollama's own port."""
    ollama_host = route.provider_name is None and route.provider_kind == "ollama"
    if not ollama_host or not config.host_explicit:  # the default host is Ollama's own port
        return route, ""
    base = route.base_url
    note = ""
    if base not in _DETECTED:
        tls = base.startswith("https:")  # plain http skips loading the CA bundle (~40 ms)
        async with make_client(PROBE_TIMEOUT_S, connect_timeout=PROBE_TIMEOUT_S, tls=tls) as client:
            ollama = await lists(client, f"{base}/api/tags", "models")
            openai = not ollama and ollama is not None
            if openai:
                openai = bool(await lists(client, f"{base}/v1/models", "data"))
        if ollama is None:
            return route, ""  # unreachable: decide nothing, the preflight error explains
        _DETECTED[base] = "openai" if openai else "ollama"
        if openai:
            note = (
                f"{base} is an OpenAI-compatible server (llama.cpp, vLLM or LM Studio),"
                f" not Ollama: using {base}/v1"
            )
    if _DETECTED[base] == "openai":
        return replace(route, provider_kind="openai", base_url=base + "/v1"), note
    return route, note


def make_provider(
    route: Route,
    read_timeout: float,
    client: Client | None = None,
    cache_dir: Path | None = None,
) -> Provider:
    """The provider for a route; its class is imported only when chosen. `cache_dir` is
    where the embedded model is assembled (`Config.paths.cache_dir`).

    Raises:
        ModelNotUsable: the embedded model without the `rift[local]` extra.
    """
    cls = provider_class(route.provider_kind)
    return cls.connect(Connection(route.base_url, route.api_key, read_timeout, client, cache_dir))


async def served_models(name: str, config: Config) -> tuple[str, list[str]]:
    """The base URL of the server behind `name`'s route and the models it lists ([] when
    it cannot be asked)."""
    route, _ = await detect_protocol(resolve(name, config), config)
    provider = make_provider(route, PROBE_TIMEOUT_S)
    try:
        return route.base_url, await provider.list_models()
    except ModelError:
        return route.base_url, []
    finally:
        await provider.aclose()


def only_model(names: list[str], base_url: str) -> tuple[str | None, str]:
    """With no model named: the one model a server serves and the line that says it is
    used, or None and the line that lists the choice (issue 44)."""
    if len(names) == 1:
        return names[0], f"using model {names[0]}, the only one {base_url} serves"
    if not names:
        return None, f"{base_url} serves no model: load one on the server"
    return None, (
        f"no model named, and {base_url} serves {len(names)}: {', '.join(names)};"
        ' pick one with --model NAME or "model" in the config'
    )


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
    provider: Provider,
    route: Route,
    num_ctx: int,
    num_ctx_explicit: bool,
    effort: str | None = None,
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
    traits = route.traits
    chosen, note = num_ctx, ""
    if limit and num_ctx > limit:
        chosen, note = limit, f"num_ctx clamped {num_ctx} → {limit}"
    elif traits.small_model and not num_ctx_explicit:
        chosen = min(num_ctx, EMBEDDED_NUM_CTX)  # CPU prefill: a small window is the fast one
    elif traits.adopts_context and not num_ctx_explicit and limit and limit > num_ctx:
        chosen = min(limit, ADOPT_CTX_CAP)
        if chosen != num_ctx:
            note = f"context budget {num_ctx} → {chosen}; /ctx overrides"
    can_think = "thinking" in info.capabilities and traits.thinking
    think = thinking.settle(effort, can_think)
    return Preflight(info=info, num_ctx=chosen, note=note, think=think)


def with_thinking(route: Route, checked: Preflight, arg: str) -> Preflight:
    """`/think on|off|auto|<level>` applied to a binding's preflight.

    Raises:
        ValueError: an unknown word, or thinking asked of a model that cannot.
    """
    can_think = checked.can_think and route.traits.thinking
    return replace(checked, think=thinking.parse_think(arg, can_think))


async def connect(name: str, config: Config) -> tuple[Route, Provider, Preflight]:
    """Resolve, detect the host's protocol, connect and preflight a model.

    Raises:
        ModelError: the model is not usable (the provider is closed again).
    """
    route, detected = await detect_protocol(resolve(name, config), config)
    provider = make_provider(route, config.read_timeout, cache_dir=config.paths.cache_dir)
    try:
        checked = await preflight(
            provider, route, config.num_ctx, config.num_ctx_explicit, config.effort
        )
    except BaseException:
        await provider.aclose()
        raise
    if detected:
        checked = replace(checked, note="; ".join(n for n in (detected, checked.note) if n))
    return route, provider, _with_vision_setting(checked, route, config)


def _with_vision_setting(checked: Preflight, route: Route, config: Config) -> Preflight:
    """The user's `model_settings.<name>.vision` where the server did not say (issue 44)."""
    info = checked.info
    said = config.model_vision.get(route.addressable, config.model_vision.get(route.wire_model))
    if info.vision_stated or said is None:
        return checked
    capabilities = info.capabilities | {"vision"} if said else info.capabilities - {"vision"}
    return replace(checked, info=replace(info, capabilities=capabilities))


def discovery_providers(config: Config, current_addressable: str) -> list[str]:
    """Provider names whose models discovery lists: configured ones plus the active built-in."""
    names = set(config.providers)
    prefix, slash, _ = current_addressable.partition("/")
    if slash and prefix in _BUILTINS:
        names.add(prefix)
    return sorted(names)


def _discovery_routes(config: Config, current_addressable: str) -> list[tuple[str, Route]]:
    """(name prefix, route) per server to probe, default host first."""
    routes = [("", _host_route("", config.host))]
    for name in discovery_providers(config, current_addressable):
        provider = config.providers.get(name)
        if provider is not None and provider.kind not in SERVER_KINDS:
            continue
        routes.append((f"{name}/", _provider_route(name, "", config)))
    return routes


async def list_all_models(config: Config, current_addressable: str) -> list[str]:
    """Every addressable model: the default host's bare, then each provider's prefixed,
    duplicates dropped. A server that does not answer within 2.5 s is skipped."""
    found: list[str] = []
    async with make_client(PROBE_TIMEOUT_S, connect_timeout=PROBE_TIMEOUT_S) as client:
        for prefix, route in _discovery_routes(config, current_addressable):
            try:
                provider = make_provider(route, PROBE_TIMEOUT_S, client=client)
                async with asyncio.timeout(PROBE_TIMEOUT_S):
                    names = await provider.list_models()
            except (ModelError, TimeoutError):
                continue
            found += [prefix + name for name in names]
    from rift.models import local_weights  # list_models only, never at startup

    found += [f"{EMBEDDED}/{spec.name}" for spec in local_weights.available(config.paths.cache_dir)]
    return list(dict.fromkeys(found))
