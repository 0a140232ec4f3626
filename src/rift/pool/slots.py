"""How many requests a pool server runs at once, and its window: llama.cpp's `/props`,
vLLM's `max_num_seqs` on some builds' model entries, else one slot, so rift never
queues requests on a server."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from rift.errors import ModelError
from rift.models.base import ModelInfo, Provider
from rift.models.http import request_json


async def read_slots(provider: Provider, model: str) -> ModelInfo:
    """The server's `show` of its model, with `slots` from vLLM where llama.cpp's is absent.

    Raises:
        ModelError: the server does not answer.
    """
    info = await provider.show(model)
    if info.slots is None:
        seqs = await _vllm_max_num_seqs(provider)
        if seqs is not None:
            info = replace(info, slots=seqs)
    return info


async def _vllm_max_num_seqs(provider: Provider) -> int | None:
    client: Any = getattr(provider, "_client", None)
    if client is None:
        return None
    headers = getattr(provider, "_headers", None)
    url = f"{provider.base_url}/models"
    try:
        data = await request_json(client, "GET", url, headers=headers, backoff=())
    except ModelError:
        return None
    entries = data.get("data") if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        value = entry.get("max_num_seqs") if isinstance(entry, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None
