"""The chat judge: a model reads the task, each candidate's diff and summary, and names
a winner on a `WINNER: <name>` line (or `WINNER: none`).

It judges the changes, not the claims, and gets no tools (so any model can judge). An
answer without a usable `WINNER:` line picks nobody; rift never guesses a name out of prose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from msgspec import Struct

from rift.config.load import Config
from rift.models.base import ChatRequest, Message, reply_text
from rift.models.registry import EMBEDDED_NUM_CTX, detect_protocol, make_provider, resolve
from rift.swarm.candidates import CandidateResult
from rift.swarm.worktrees import read_patch

MAX_DIFF_CHARS = 12_000
"""One candidate's diff is cut to this many characters (head and tail kept)."""
REPLY_TOKENS = 1024

SYSTEM = """You are the judge of a race between coding agents. Each candidate worked on the \
same task in its own copy of the same repository. You see the task, then for each candidate \
its test results (when the project's tests were run), its own summary and its diff.

Judge the changes only: a summary can claim work the diff does not contain. Prefer the \
candidate whose diff fully and correctly does what the task asks, without unrelated or \
broken changes; between equally good ones prefer the smaller diff. A candidate with no \
changes cannot win.

Explain briefly, then end with exactly one line:
WINNER: <candidate name>
or, when no candidate solved the task:
WINNER: none"""

_WINNER_LINE = re.compile(r"^[\s>*_#`-]*winner[\s*_`]*[:=]\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_NONE_WORDS = {"none", "nobody", "no winner", "no one", "neither", "n/a"}


class Verdict(Struct, frozen=True):
    """What the judge decided: a candidate's name, or None for "none" or a malformed answer."""

    winner: str | None
    problem: str = ""
    """Why the answer could not be used (malformed); empty for a real pick or "none"."""
    answer: str = ""


def parse_winner(text: str, names: Sequence[str]) -> Verdict:
    """The judge's pick from its answer: the last `WINNER:` line decides."""
    visible = _THINK.sub("", text)
    lines = _WINNER_LINE.findall(visible)
    if not lines:
        return Verdict(None, "the judge's answer had no 'WINNER:' line", text)
    value = lines[-1].strip().strip("*_`'\"[]<>().,;!").strip()
    if value.lower() in _NONE_WORDS or value.lower().startswith("none"):
        return Verdict(None, "", text)
    token = value.split()[0].strip("*_`'\"[]<>().,;!") if value else ""
    by_lower = {name.lower(): name for name in names}
    if token.lower() in by_lower:
        return Verdict(by_lower[token.lower()], "", text)
    by_ordinal = {name.split("-", 1)[0]: name for name in names}
    if token in by_ordinal:
        return Verdict(by_ordinal[token], "", text)
    shown = value[:60] or "(nothing)"
    return Verdict(None, f"the judge named '{shown}', which is not a candidate", text)


def judge_prompt(
    task: str, results: Sequence[CandidateResult], diff_chars: int = MAX_DIFF_CHARS
) -> list[Message]:
    """The two messages the judge reads; each diff cut to `diff_chars`."""
    parts = [f"# Task\n\n{task.strip()}\n", *(_candidate_block(r, diff_chars) for r in results)]
    names = ", ".join(r.name for r in results)
    parts.append(f"Candidates: {names}. End with 'WINNER: <name>' or 'WINNER: none'.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(parts)}]


def _candidate_block(result: CandidateResult, diff_chars: int) -> str:
    tests = result.tests
    lines = [f"# Candidate {result.name} (model {result.spec.model})"]
    if tests is not None:
        lines.append(f"Tests ({tests.command}): {tests.describe()}")
        if tests.tail and not tests.green:
            lines.append("Test output (end):\n" + tests.tail)
    summary = result.summary.strip() or "(no summary)"
    lines.append("Its summary: " + summary[:2000])
    diff = _read_patch(result)
    if not diff.strip():
        lines.append("Diff: (no changes)")
    else:
        lines.append("Diff:\n```diff\n" + _cap(diff, diff_chars) + "\n```")
    return "\n".join(lines) + "\n"


def _read_patch(result: CandidateResult) -> str:
    if result.patch is None:
        return ""
    try:
        return read_patch(result.patch).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _cap(diff: str, limit: int) -> str:
    if len(diff) <= limit:
        return diff.rstrip("\n")
    half = limit // 2
    dropped = len(diff) - 2 * half
    return f"{diff[:half]}\n... [{dropped} characters of the diff left out] ...\n{diff[-half:]}"


def diff_budget(num_ctx: int, candidates: int) -> int:
    """Characters of diff each candidate may show so that all of them fit the window
    (about three characters a token, room kept for the instructions and the answer)."""
    room = (num_ctx - REPLY_TOKENS - 1024) * 3 // max(1, candidates)
    return max(1000, min(MAX_DIFF_CHARS, room))


async def ask_judge(
    model: str, config: Config, task: str, results: Sequence[CandidateResult]
) -> str:
    """The judge model's whole answer (thinking left out); ModelError when the judge's
    server could not be reached or refused the model."""
    route, _ = await detect_protocol(resolve(model, config), config)
    provider = make_provider(route, config.read_timeout, cache_dir=config.paths.cache_dir)
    try:
        info = await provider.show(route.wire_model)
        num_ctx = config.num_ctx
        if info.context_length:
            num_ctx = min(num_ctx, info.context_length)
        if route.traits.small_model and not config.num_ctx_explicit:
            num_ctx = min(num_ctx, EMBEDDED_NUM_CTX)
        request = ChatRequest(
            model=route.wire_model,
            messages=judge_prompt(task, results, diff_budget(num_ctx, len(results))),
            num_ctx=num_ctx,
            temperature=0.0,
            num_predict=REPLY_TOKENS,
        )
        return await reply_text(provider, request)
    finally:
        await provider.aclose()
