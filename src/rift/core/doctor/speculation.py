"""`rift doctor`'s speculation advice for llama.cpp's server.

Rewrites and edits re-emit text already in the prompt; llama-server can draft those
tokens from the prompt's n-grams (`--spec-type ngram-simple`) and verify several per
step, with the same output. `/slots`' per-slot `speculative` flag says whether it is on;
`/props`' `speculative.types` says "none" even with the flag in the build rift installs
(0.3.36), so it only counts when `/slots` is not exposed and it names a type.
"""

from __future__ import annotations

from typing import Any, Literal

from rift.errors import ModelError
from rift.models.http import Client, request_json
from rift.models.server_info import root_of

SPEC_FLAG = "--spec-type ngram-simple"
OFF = ("", "none")

Advice = tuple[Literal["ok", "info"], str, str]
"""(status, detail, fix) for one line of the doctor's report."""


async def speculation_advice(client: Client, base_url: str) -> Advice | None:
    """The doctor's line on speculative decoding; None when the server does not say."""
    root = root_of(base_url)
    props = await _get(client, f"{root}/props")
    if not isinstance(props, dict):
        return None
    slots = await _get(client, f"{root}/slots")
    flags = (
        [s.get("speculative") for s in slots if isinstance(s, dict)]
        if isinstance(slots, list)
        else []
    )
    types = _types(props)
    if any(flag is True for flag in flags) or (types and not set(types) <= set(OFF)):
        return ("ok", "llama-server drafts tokens from the prompt (speculative decoding)", "")
    if not flags and not types:
        return None  # neither endpoint says: no advice rather than a guess
    return (
        "info",
        "llama-server decodes without speculation: rewrites and edits re-type text"
        " that is already in the prompt, one token per step",
        f"add {SPEC_FLAG} to llama-server: it drafts the next tokens from n-grams of the"
        " prompt (no draft model) and verifies them in one batch, so rewrites and edits"
        " decode faster with the same output",
    )


def _types(props: dict[str, Any]) -> list[str]:
    """`speculative.types` (or the older `speculative.type`) under the default settings."""
    settings = props.get("default_generation_settings")
    params = settings.get("params") if isinstance(settings, dict) else None
    if not isinstance(params, dict):
        return []
    value = params.get("speculative.types", params.get("speculative.type"))
    if isinstance(value, str):
        return [t.strip() for t in value.split(",")]
    if isinstance(value, list):
        return [str(t) for t in value]
    return []


async def _get(client: Client, url: str) -> Any:
    try:
        return await request_json(client, "GET", url, backoff=())
    except ModelError:
        return None
