"""ask_user: put a question to the person, free text or one of a few choices.

A guess at an ambiguous request wastes a turn; asking costs one round trip. The
question goes through the interaction broker like every approval prompt; with
nobody attached (`-p`) the tool refuses at once: nothing may block.
"""

from __future__ import annotations

from rift.errors import ToolError
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, titled

NO_USER = (
    "no user is attached to answer questions (this is a non-interactive run);"
    " decide yourself, say what you assumed, and carry on"
)
DISMISSED = "The user dismissed the question without answering; proceed on your own judgement."


def _choices(value: list[str] | None) -> list[str]:
    """The distinct non-empty choices (a string, a line each, was made a list by the
    argument check, tools/arguments.py)."""
    return list(dict.fromkeys(item.strip() for item in value or () if item.strip()))


class AskUserArgs(Args, frozen=True, kw_only=True):
    question: str
    choices: list[str] | None = None


async def _run(args: AskUserArgs, ctx: ToolContext) -> ToolOutput:
    question = args.question.strip()
    if not question:
        raise ToolError("parameter 'question' is empty")
    choices = _choices(args.choices)
    broker = ctx.services.asker
    if broker is None or not broker.attached:
        raise ToolError(NO_USER)
    answer = await broker.ask(question, [], choices)
    if not isinstance(answer, str) or not answer.strip():
        return ToolOutput(ok=True, text=DISMISSED)
    return ToolOutput(ok=True, text=f"User answered: {answer.strip()}")


TOOL = from_args(
    _run,
    description=(
        "Ask the user a question when the request is ambiguous and a wrong guess is costly. "
        "Give choices for a multiple-choice question; omit them for a free-text answer."
    ),
    kind="other",
    title=titled("Ask: {}", "question", "Ask the user"),
)
