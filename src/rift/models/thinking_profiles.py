"""How each family of reasoning model takes the thinking switch, effort and sampling, on
an OpenAI-compatible server (llama.cpp, vLLM, SGLang, LM Studio, OpenAI itself).

One table, first match wins, on the lower-cased model name. A model no row names gets
`DEFAULT`: switch and effort both sent, sampling kept. Rows follow the model cards:
- gpt-oss: always reasons, at low/medium/high; older llama.cpp servers take the effort
  only through `chat_template_kwargs`, so both are sent. "Off" is the lowest level.
- Qwen3 hybrids and QwQ: `enable_thinking`; thinking mode must not decode greedily, so
  rift's low temperature is left out while the model thinks. Qwen3-Coder never thinks.
- DeepSeek-R1: always thinks; sampling left to the server.
- OpenAI's o-series and gpt-5: `reasoning_effort`; a temperature other than 1 is a 400.
"""

from __future__ import annotations

import re
from typing import Literal

from msgspec import Struct

DropSampling = Literal["never", "thinking", "always"]


class ThinkingProfile(Struct, frozen=True):
    """What one family of models takes."""

    pattern: str
    """A regular expression searched in the lower-cased model name."""
    switch: bool = True
    """The chat template reads `enable_thinking` (Qwen3's switch)."""
    efforts: tuple[str, ...] = ()
    """The `reasoning_effort` levels the model knows, lowest first; () sends none."""
    always_thinks: bool = False
    """Thinking cannot be switched off: "off" asks for the lowest effort instead."""
    effort_in_template: bool = False
    """The effort also goes in `chat_template_kwargs` (gpt-oss on older llama.cpp)."""
    drop_sampling: DropSampling = "never"
    """When the request must leave sampling (its temperature) to the server."""


_OPENAI_EFFORTS = ("minimal", "low", "medium", "high")
DEFAULT = ThinkingProfile("", efforts=_OPENAI_EFFORTS)

PROFILES: tuple[ThinkingProfile, ...] = (
    ThinkingProfile(r"gpt-oss", switch=False, efforts=("low", "medium", "high"),
                    always_thinks=True, effort_in_template=True),
    ThinkingProfile(r"qwen3[\w.-]*coder", switch=False),
    ThinkingProfile(r"qwen3|qwq", drop_sampling="thinking"),
    ThinkingProfile(r"deepseek-r1|deepseek-reasoner", switch=False, always_thinks=True,
                    drop_sampling="always"),
    ThinkingProfile(r"(^|/)(o[134](-|$)|gpt-5)", switch=False, efforts=_OPENAI_EFFORTS,
                    drop_sampling="always"),
)  # fmt: skip


def profile_for(model: str) -> ThinkingProfile:
    """The first row whose pattern the model name contains; `DEFAULT` when none does."""
    name = model.lower()
    return next((p for p in PROFILES if re.search(p.pattern, name)), DEFAULT)


def effort_level(profile: ThinkingProfile, wanted: str | None, thinking_off: bool) -> str | None:
    """The `reasoning_effort` to send: the wanted level, or the nearest the model knows
    (rift's levels run minimal … max); the lowest for "off" on a model that always thinks."""
    if not profile.efforts:
        return None
    if thinking_off:
        return profile.efforts[0] if profile.always_thinks else None
    if wanted is None:
        return None
    if wanted in profile.efforts:
        return wanted
    return profile.efforts[0] if wanted == "minimal" else profile.efforts[-1]


def drops_sampling(profile: ThinkingProfile, thinking: bool) -> bool:
    """Whether this request leaves sampling to the server."""
    if profile.drop_sampling == "always":
        return True
    return profile.drop_sampling == "thinking" and thinking
