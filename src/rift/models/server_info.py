"""What a self-hosted server says about itself beyond the model list.

llama.cpp's server reports its *training* context in `/v1/models`; the window it serves
(`-c` over its `-np` slots) only `/props` says. Ollama's OpenAI-compatible endpoint
serves its default window whatever a client asks, unless the Modelfile sets one. Each
question is asked once, and answered None where a server does not say: most servers
have none of these endpoints.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct

from rift.errors import ModelError
from rift.models.http import Client, lists, request_json


class LlamaProps(Struct, frozen=True):
    """llama.cpp's `/props`: the served window per slot, the slots, and the template."""

    n_ctx: int | None
    """Tokens per slot: `-c` divided by `-np`."""
    total_slots: int | None
    vision: bool
    chat_template: str
    build: str

    @property
    def template_thinks(self) -> bool:
        """The chat template knows a thinking section (Qwen3, DeepSeek-R1 and the like)."""
        return "<think>" in self.chat_template or "enable_thinking" in self.chat_template

    @property
    def template_tools(self) -> bool:
        """The chat template renders tools (only used with `--jinja`)."""
        return "tools" in self.chat_template


def root_of(base_url: str) -> str:
    """The server root: an OpenAI-compatible base without its `/v1`."""
    return base_url.rstrip("/").removesuffix("/v1")


MAX_SLOTS = 64
"""The most slots believed from `/props`: rift keeps state per slot, and a server
claiming 10,000,000 of them once cost 488 MiB. No real server runs more."""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def parse_props(data: Any) -> LlamaProps | None:
    """`/props` as `LlamaProps`; None when the answer is not llama.cpp's shape."""
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    if not isinstance(settings, dict) and "total_slots" not in data:
        return None
    settings = settings if isinstance(settings, dict) else {}
    modalities = data.get("modalities")
    vision = bool(modalities.get("vision")) if isinstance(modalities, dict) else False
    template = data.get("chat_template")
    build = data.get("build_info")
    return LlamaProps(
        n_ctx=_int(settings.get("n_ctx")),
        total_slots=min(slots, MAX_SLOTS) if (slots := _int(data.get("total_slots"))) else None,
        vision=vision,
        chat_template=template if isinstance(template, str) else "",
        build=build if isinstance(build, str) else "",
    )


async def llama_props(
    client: Client, base_url: str, headers: dict[str, str] | None = None
) -> LlamaProps | None:
    """The server's `/props` when it is llama.cpp's server, else None (asked once, no retry)."""
    try:
        data = await request_json(
            client, "GET", f"{root_of(base_url)}/props", headers=headers, backoff=()
        )
    except ModelError:
        return None
    return parse_props(data)


async def is_ollama(client: Client, base_url: str) -> bool:
    """The server at this root also answers Ollama's native `/api/tags`."""
    return bool(await lists(client, f"{root_of(base_url)}/api/tags", "models"))


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


async def ollama_num_ctx(client: Client, base_url: str, model: str) -> int | None:
    """The `num_ctx` an Ollama model's Modelfile sets (`/api/show` `parameters`): the
    window its OpenAI-compatible endpoint serves it with; None when it sets none."""
    try:
        data = await request_json(
            client, "POST", f"{root_of(base_url)}/api/show", json_body={"model": model}, backoff=()
        )
    except ModelError:
        return None
    parameters = data.get("parameters") if isinstance(data, dict) else None
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    return _int(int(found.group(1))) if found else None
