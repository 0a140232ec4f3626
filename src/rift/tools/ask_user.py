"""ask_user: put a question to the person, free text or one of a few choices.

A model that guesses at an ambiguous request wastes a whole turn; asking costs
one round trip. The question goes through the interaction broker like every
approval prompt (serve: an `ask` whose empty `choices` means free text), so
each front end renders it its own way. With nobody attached (`-p`) the tool
refuses at once and tells the model to decide itself: nothing may block.
"""

from __future__ import annotations

from typing import Any

from rift.errors import ToolError
from rift.tools.base import Tool, ToolContext, ToolOutput, arg_text, require_str

NO_USER = (
    "no user is attached to answer questions (this is a non-interactive run);"
    " decide yourself, say what you assumed, and carry on"
)
DISMISSED = "The user dismissed the question without answering; proceed on your own judgement."


def _choices(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [line for line in value.splitlines() if line.strip()]
    if not isinstance(value, list):
        raise ToolError("parameter 'choices' must be a list of strings")
    return list(dict.fromkeys(str(item).strip() for item in value if str(item).strip()))


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    question = require_str(args, "question").strip()
    if not question:
        raise ToolError("parameter 'question' is empty")
    choices = _choices(args.get("choices"))
    broker = ctx.services.asker
    if broker is None or not broker.attached:
        raise ToolError(NO_USER)
    answer = await broker.ask(question, [], choices)
    if not isinstance(answer, str) or not answer.strip():
        return ToolOutput(ok=True, text=DISMISSED)
    return ToolOutput(ok=True, text=f"User answered: {answer.strip()}")


def _summary(args: dict[str, Any]) -> str:
    return arg_text(args, "question")


def _title(args: dict[str, Any]) -> str:
    question = arg_text(args, "question")
    return f"Ask: {question}" if question else "Ask the user"


TOOL = Tool(
    name="ask_user",
    description=(
        "Ask the user a question when the request is ambiguous and a wrong guess is costly. "
        "Give choices for a multiple-choice question; omit them for a free-text answer."
    ),
    parameters={
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "choices": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["question"],
    },
    run=_run,
    kind="other",
    summary=_summary,
    title=_title,
)
