"""`proxy_env.may_proxy` never says "no proxy" where httpx would use one.

The reference is httpx itself: a client built the way httpx builds one when it
reads the environment (no explicit transport) is asked which mount, proxy or
none, it picks for the URL. Whenever `may_proxy` sends a host over wire.py
(False), httpx must agree that no proxy applies.
"""

from __future__ import annotations

import itertools

import httpx
import pytest

from rift.models.proxy_env import may_proxy

HOSTS = ("127.0.0.1", "10.1.2.3", "localhost", "gpu-box", "gpu.lan", "a.gpu.lan", "::1")
ENVS: list[dict[str, str]] = [
    {},
    {"HTTP_PROXY": "http://proxy:3128"},
    {"http_proxy": "http://proxy:3128", "HTTP_PROXY": ""},
    {"ALL_PROXY": "socks5://proxy:1080"},
    {"HTTPS_PROXY": "http://proxy:3128"},
    {"HTTP_PROXY": "http://proxy:3128", "REQUEST_METHOD": "GET"},
    *(
        {"http_proxy": "proxy:3128", "NO_PROXY": no}
        for no in (
            "*",
            "127.0.0.1",
            "localhost,gpu.lan",
            ".gpu.lan",
            "gpu-box:8000",
            "10.0.0.0/8",
            "::1",  # (httpx itself refuses a bracketed "[::1]": no reference to compare)
            "http://gpu-box",
            " gpu-box , x ",
            "LOCALHOST",
            "box,gpu",
        )
    ),
]


def _httpx_proxies(host: str) -> bool:
    """Whether httpx, reading the environment itself, would proxy `http://host:8000/`."""
    client = httpx.Client()  # trust_env and no transport: httpx mounts the proxies
    try:
        url = httpx.URL(f"http://{f'[{host}]' if ':' in host else host}:8000/")
        for pattern, transport in client._mounts.items():
            if pattern.matches(url):
                return transport is not None
        return False
    finally:
        client.close()


@pytest.mark.parametrize(("env", "host"), list(itertools.product(ENVS, HOSTS)))
def test_no_proxy_answer_is_never_wrong(
    env: dict[str, str], host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD"):
        monkeypatch.delenv(key, raising=False)
        monkeypatch.delenv(key.lower(), raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if not may_proxy(host):
        assert not _httpx_proxies(host)


@pytest.mark.parametrize(
    ("env", "host", "expected"),
    [
        ({}, "gpu-box", False),
        ({"HTTP_PROXY": "http://p:1"}, "gpu-box", True),
        ({"HTTPS_PROXY": "http://p:1"}, "gpu-box", False),
        ({"http_proxy": "http://p:1", "no_proxy": "gpu-box"}, "gpu-box", False),
        ({"http_proxy": "http://p:1", "no_proxy": "box"}, "gpu-box", True),
        ({"http_proxy": "http://p:1", "no_proxy": ".lan"}, "gpu.lan", False),
        ({"http_proxy": "http://p:1", "no_proxy": ".gpu.lan"}, "gpu.lan", True),
        ({"http_proxy": "http://p:1", "no_proxy": "10.0.0.0/8"}, "10.1.2.3", True),
        ({"HTTP_PROXY": "http://p:1", "REQUEST_METHOD": "GET"}, "gpu-box", False),
    ],
)
def test_may_proxy_reads_what_httpx_reads(env: dict[str, str], host: str, expected: bool) -> None:
    """The same rules over an explicit mapping (the process environment untouched)."""
    assert may_proxy(host, env) is expected
