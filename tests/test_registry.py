"""Routing, preflight and model discovery, against real fake servers."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fakes.fake_server import FakeModelServer

from rift.config.load import Config, ProviderConfig, load_config
from rift.errors import ModelNotUsable
from rift.fs.paths import Paths
from rift.models import local_weights
from rift.models.base import ModelInfo
from rift.models.ollama import OllamaProvider
from rift.models.openai import OpenAIProvider
from rift.models.registry import (
    PROVIDER_CLASSES,
    SERVER_KINDS,
    Preflight,
    Route,
    discovery_providers,
    list_all_models,
    make_provider,
    preflight,
    provider_class,
    resolve,
)

pytestmark = pytest.mark.timeout(20)
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def config(host: str = "http://localhost:11434", **providers: ProviderConfig) -> Config:
    return Config(host=host, providers=providers)


def provider(
    name: str, base_url: str, kind: str = "openai", key: str | None = None
) -> ProviderConfig:
    return ProviderConfig(name=name, base_url=base_url, kind=kind, api_key=key)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------ routing


def test_bare_name_goes_to_the_default_ollama_host() -> None:
    assert resolve("qwen3:8b", config()) == Route(
        "ollama", "http://localhost:11434", None, "qwen3:8b", "qwen3:8b", None
    )


def test_v1_host_means_openai_without_key() -> None:
    route = resolve("llama", config("http://box:8000/v1/"))
    assert (route.provider_kind, route.base_url, route.api_key) == (
        "openai",
        "http://box:8000/v1",
        None,
    )


def test_configured_provider_wins_and_splits_at_first_slash() -> None:
    cfg = config(openrouter=provider("openrouter", "https://openrouter.ai/api/v1", key="k"))
    route = resolve("openrouter/qwen/qwen3-30b-a3b", cfg)
    assert route == Route(
        "openai",
        "https://openrouter.ai/api/v1",
        "k",
        "qwen/qwen3-30b-a3b",
        "openrouter/qwen/qwen3-30b-a3b",
        "openrouter",
    )


def test_builtin_openai_has_no_key_without_config() -> None:
    route = resolve("openai/gpt-4.1", config())
    assert route == Route(
        "openai", "https://api.openai.com/v1", None, "gpt-4.1", "openai/gpt-4.1", "openai"
    )


def test_configured_openai_provider_overrides_the_builtin() -> None:
    cfg = config(openai=provider("openai", "https://proxy.example/v1", key="sk"))
    assert resolve("openai/gpt", cfg).base_url == "https://proxy.example/v1"


def test_unknown_prefix_is_a_bare_name() -> None:
    route = resolve("hf.co/org/model:Q4", config())
    assert (route.provider_kind, route.wire_model, route.provider_name) == (
        "ollama",
        "hf.co/org/model:Q4",
        None,
    )


def test_anthropic_routes_to_the_anthropic_client_with_its_env_key(tmp_path: Path) -> None:
    cfg = config(claude=provider("claude", "https://proxy.example/v1", kind="anthropic"))
    route = resolve("claude/sonnet", cfg)
    assert (route.provider_kind, route.base_url, route.wire_model) == (
        "anthropic",
        "https://proxy.example/v1",
        "sonnet",
    )
    loaded = load_config({"ANTHROPIC_API_KEY": "sk-ant", "HOME": str(tmp_path)}, tmp_path)
    builtin = resolve("anthropic/claude-sonnet-4-5", loaded)
    assert (builtin.provider_kind, builtin.base_url, builtin.api_key) == (
        "anthropic",
        "https://api.anthropic.com/v1",
        "sk-ant",
    )


def test_builtin_openai_reads_openai_api_key_from_the_environment(tmp_path: Path) -> None:
    loaded = load_config({"OPENAI_API_KEY": " sk-1 ", "HOME": str(tmp_path)}, tmp_path)
    assert resolve("openai/gpt-4o", loaded).api_key == "sk-1"
    assert resolve("openai/gpt-4o", load_config({"HOME": str(tmp_path)}, tmp_path)).api_key is None


def test_every_kind_maps_to_a_class_that_declares_its_traits() -> None:
    assert set(SERVER_KINDS) | {"embedded"} == set(PROVIDER_CLASSES)
    traits = {kind: provider_class(kind).TRAITS for kind in PROVIDER_CLASSES}
    assert [k for k, t in traits.items() if t.small_model] == ["embedded"]
    assert [k for k, t in traits.items() if t.reports_truncation] == ["ollama"]
    assert {k for k, t in traits.items() if t.vision} == {"ollama", "openai", "anthropic"}
    assert resolve("m", config()).traits == traits["ollama"]


def test_unknown_kind_is_refused_with_the_valid_kinds() -> None:
    cfg = config(box=provider("box", "http://box/v1", kind="llamafile"))
    with pytest.raises(
        ModelNotUsable, match=r"unknown kind 'llamafile' \(valid kinds: anthropic, ollama, openai\)"
    ):
        resolve("box/m", cfg)


def test_embedded_route_and_provider() -> None:
    assert resolve("embedded", config()).provider_kind == "embedded"
    route = resolve("embedded/qwen2.5-coder-0.5b", config())
    assert (route.provider_kind, route.wire_model) == ("embedded", "qwen2.5-coder-0.5b")
    if not local_weights.runtime_installed():
        with pytest.raises(ModelNotUsable, match=r"extra\) is not installed: .*pip install"):
            make_provider(route, 10)
    else:
        assert type(make_provider(route, 10)).__name__ == "EmbeddedProvider"


def test_make_provider_picks_the_client() -> None:
    async def go() -> tuple[object, object]:
        ollama = make_provider(resolve("m", config()), 10)
        openai = make_provider(resolve("m", config("http://x/v1")), 10)
        await ollama.aclose()
        await openai.aclose()
        return ollama, openai

    ollama, openai = run(go())
    assert isinstance(ollama, OllamaProvider) and isinstance(openai, OpenAIProvider)


# ---------------------------------------------------------------- preflight


MODELS = {
    "models": [
        {"name": "small", "capabilities": ["tools"], "context_length": 8192},
        {"name": "big", "capabilities": ["tools", "thinking"], "context_length": 262144},
        {"name": "mid", "capabilities": ["tools"], "context_length": 65536},
        {"name": "chatty", "capabilities": ["completion"], "context_length": 4096},
    ]
}


def check(host: str, model: str, num_ctx: int = 32768, explicit: bool = False) -> Preflight:
    async def go() -> Preflight:
        route = resolve(model, config(host))
        prov = make_provider(route, 5)
        try:
            return await preflight(prov, route, num_ctx, explicit)
        finally:
            await prov.aclose()

    return run(go())


@pytest.fixture(scope="module")
def server() -> Any:
    with FakeModelServer(MODELS) as fake:
        yield fake


def test_clamp_to_the_model_context(server: FakeModelServer) -> None:
    result = check(server.url, "small")
    assert (result.num_ctx, result.note, result.think) == (
        8192,
        "num_ctx clamped 32768 → 8192",
        False,
    )


def test_ollama_keeps_the_conservative_default(server: FakeModelServer) -> None:
    result = check(server.url, "big")
    assert (result.num_ctx, result.note, result.think) == (32768, "", None)


def test_provider_routed_adopts_a_larger_context(server: FakeModelServer) -> None:
    mid = check(server.v1_url, "mid")
    assert (mid.num_ctx, mid.note) == (65536, "context budget 32768 → 65536; /ctx overrides")
    big = check(server.v1_url, "big")
    assert (big.num_ctx, big.note) == (131072, "context budget 32768 → 131072; /ctx overrides")


def test_explicit_num_ctx_is_not_raised(server: FakeModelServer) -> None:
    result = check(server.v1_url, "mid", num_ctx=16384, explicit=True)
    assert (result.num_ctx, result.note) == (16384, "")


def test_model_without_tools_is_refused(server: FakeModelServer) -> None:
    with pytest.raises(ModelNotUsable, match="model 'chatty' does not have the 'tools' capability"):
        check(server.url, "chatty")


@pytest.mark.parametrize("v1", [False, True])
def test_missing_model_lists_the_available_ones(server: FakeModelServer, v1: bool) -> None:
    host = server.v1_url if v1 else server.url
    with pytest.raises(ModelNotUsable) as info:
        check(host, "nope")
    text = str(info.value)
    assert "model 'nope' not found" in text
    assert f"models on {host}: small, big, mid, chatty" in text


# ---------------------------------------------------------------- discovery


def test_discovery_provider_names() -> None:
    assert discovery_providers(config(), "openai/model") == ["openai"]
    assert discovery_providers(config(), "unknown/model") == []
    assert discovery_providers(config(), "bare") == []
    cfg = config(zeta=provider("zeta", "http://z/v1"), kimi=provider("kimi", "http://k/v1"))
    assert discovery_providers(cfg, "kimi/model") == ["kimi", "zeta"]
    assert discovery_providers(cfg, "openai/model") == ["kimi", "openai", "zeta"]


def test_list_all_models_dedups_host_first_in_request_order() -> None:
    script = {"models": [{"name": "kimi-for-coding"}, {"name": "kimi-for-coding"}]}
    with FakeModelServer(script) as fake:
        cfg = config(fake.v1_url, kimi=provider("kimi", fake.url + "/coding/v1"))
        names = run(list_all_models(cfg, "kimi/kimi-for-coding"))
        log = [(r["_method"], r["_path"]) for r in fake.requests()]
    assert served(names) == ["kimi-for-coding", "kimi/kimi-for-coding"]
    assert log == [("GET", "/v1/models"), ("GET", "/coding/v1/models")]


def test_list_all_models_skips_dead_and_failing_servers() -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with (
        FakeModelServer({"models": [{"name": "a"}, {"name": "b"}]}) as host,
        FakeModelServer({"models": [{"name": "a"}]}) as other,
        FakeModelServer({"list_status": 503}) as failing,
    ):
        cfg = config(
            host.url,
            zz=provider("zz", other.url + "/v1"),
            dead=provider("dead", dead),
            broken=provider("broken", failing.v1_url),
        )
        names = run(list_all_models(cfg, "a"))
    assert served(names) == ["a", "b", "zz/a"]


def served(names: list[str]) -> list[str]:
    """The names servers answered with (the embedded ones, where installed, come last)."""
    return [name for name in names if not name.startswith("embedded/")]


def test_list_all_models_ends_with_the_installed_embedded_models(tmp_path: Path) -> None:
    paths = Paths.from_env({"HOME": str(tmp_path)})
    cfg = Config(host=f"http://127.0.0.1:{free_port()}", paths=paths)
    names = run(list_all_models(cfg, "m"))
    present = [f"embedded/{s.name}" for s in local_weights.available(cfg.paths.cache_dir)]
    assert names == present
    if not local_weights.runtime_installed():
        assert names == []


class _InfoOnly:
    """A provider that only answers `show` (preflight's one question)."""

    base_url = "embedded"

    async def show(self, model: str) -> ModelInfo:
        return ModelInfo(name=model, capabilities=frozenset({"tools"}), context_length=32768)


def test_embedded_num_ctx_is_8192_unless_set_explicitly() -> None:
    route = resolve("embedded", config())
    stub: Any = _InfoOnly()
    assert run(preflight(stub, route, 32768, False)).num_ctx == 8192
    assert run(preflight(stub, route, 4096, False)).num_ctx == 4096
    explicit = run(preflight(stub, route, 16384, True))
    assert (explicit.num_ctx, explicit.note) == (16384, "")


def test_discovery_skips_a_provider_that_cannot_connect() -> None:
    with FakeModelServer({"models": [{"name": "local-one"}]}) as fake:
        # anthropic/… is active but no ANTHROPIC_API_KEY: listing goes on without it
        names = run(list_all_models(config(fake.url), "anthropic/claude-sonnet-4-5"))
    assert [n for n in names if not n.startswith("embedded/")] == ["local-one"]
