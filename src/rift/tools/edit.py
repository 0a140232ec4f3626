"""edit: replace an exact snippet of a file.

Exact matching keeps edits honest, but small models get whitespace or line endings
slightly wrong. Line endings are reconciled silently; otherwise a failed match
explains itself (same text with other whitespace, or the closest line).

Those hints quote the file, so an edit first passes the Read rules: on a
Read-denied file it would otherwise be a content oracle ("Closest match is
line 2: SECRET_TOKEN=…", or a yes/no per guess).
"""

from __future__ import annotations

import bisect
import itertools
import re
from pathlib import Path

from rift.errors import ToolError
from rift.fs import safe_fs
from rift.tools import guard, leftovers, protected
from rift.tools.arguments import Args, from_args
from rift.tools.base import (
    ToolContext,
    ToolOutput,
    bigram_dice,
    is_binary,
    not_found_message,
    titled,
)
from rift.tools.write import apply_change, authorize, changed, snapshot

PROBE_MIN = 8
SIMILARITY_THRESHOLD = 0.5
DISPLAY_CAP = 120


def _to_convention(text: str, crlf: bool) -> str:
    lf = text.replace("\r\n", "\n")
    return lf.replace("\n", "\r\n") if crlf else lf


def _whitespace_match_line(content: str, old: str) -> int | None:
    """The line where `old` occurs if all whitespace is ignored, else None."""
    needle = "".join(old.split())
    if not needle:
        return None
    tokens = list(re.finditer(r"\S+", content))
    squashed = "".join(m.group() for m in tokens)
    at = squashed.find(needle)
    if at < 0:
        return None
    starts = list(itertools.accumulate((len(m.group()) for m in tokens), initial=0))
    token = tokens[bisect.bisect_right(starts, at) - 1]
    return content.count("\n", 0, token.start()) + 1


def _closest_line(content: str, old: str) -> str | None:
    probe = next((s.strip() for s in old.splitlines() if len(s.strip()) >= PROBE_MIN), None)
    if probe is None:
        return None
    best, best_score = 0, SIMILARITY_THRESHOLD
    lines = content.split("\n")
    for n, line in enumerate(lines, 1):
        score = bigram_dice(probe, line.strip())
        if score > best_score:
            best, best_score = n, score
    if not best:
        return None
    shown = lines[best - 1].strip()
    if len(shown) > DISPLAY_CAP:
        shown = shown[:DISPLAY_CAP] + "…"
    return f"Closest match is line {best}: `{shown}`."


def not_found_error(raw: str, content: str, old: str) -> ToolError:
    """Explain a failed match as specifically as the file allows."""
    hints = [f"old_string not found in {raw}."]
    line = _whitespace_match_line(content, old)
    if line is not None:
        hints.append(
            f"The same text exists at line {line} with different whitespace"
            " (indentation or line breaks); copy it exactly."
        )
    else:
        closest = _closest_line(content, old)
        if closest:
            hints.append(closest)
    hints.append("Re-read the file and copy old_string exactly, including indentation.")
    return ToolError(" ".join(hints))


def replace(raw: str, content: str, old: str, new: str, replace_all: bool) -> tuple[str, int]:
    """The new file text and the number of replacements; raises ToolError on no/ambiguous match."""
    crlf = "\r\n" in content
    target = old if old in content else _to_convention(old, crlf)
    replacement = _to_convention(new, crlf)
    count = content.count(target)
    if count == 0:
        raise not_found_error(raw, content, old)
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {raw}; include more context around it"
            " to make it unique, or set replace_all to replace every occurrence"
        )
    if replace_all and old.isidentifier() and new.isidentifier():
        # A rename: whole names only, and in Python code only (not its comments or text).
        python = (
            leftovers.rename_in_python(content, old, new) if raw.endswith((".py", ".pyi")) else None
        )
        renamed, uses = python or leftovers.replace_identifier(content, old, new)
        if uses:
            return renamed, uses
    if replace_all:
        return content.replace(target, replacement), count
    return content.replace(target, replacement, 1), 1


def unwrapped(content: str, old: str, new: str, strip: bool = True) -> tuple[str, str]:
    """old_string/new_string without a `<tool_response>` wrapper a small model copied from
    the chat template (guard.strip_template_wrapper), each only where it had one and
    the file does not hold the wrapped text itself; `strip` False (a document or a
    fixture, from a capable model: guard.proves_debris) leaves both as sent."""
    if not strip:
        return old, new
    bare_old = guard.strip_template_wrapper(old).rstrip("\n") if old not in content else old
    bare_new = guard.strip_template_wrapper(new)
    if bare_new != new:
        bare_new = bare_new.rstrip("\n") if not new.endswith("\n") else bare_new
    return (bare_old if bare_old in content else old), bare_new


def unnumbered(content: str, old: str, new: str) -> tuple[str, str]:
    """old_string/new_string with the read tool's line numbers dropped, when old_string
    carries them and only its unnumbered form is in the file (a small model's
    commonest copying slip); otherwise both unchanged."""
    if old in content or not guard.has_line_numbers(old):
        return old, new
    bare = guard.strip_line_numbers(old)
    if bare not in content and _to_convention(bare, True) not in content:
        return old, new
    return bare, guard.strip_line_numbers(new) if guard.has_line_numbers(new) else new


def refusal(
    raw: str, path: Path, content: str, new: str, updated: str, small: bool = False
) -> str | None:
    """Why this edit must not be applied (tools/guard.py), as advice; None when it may.
    `small`: strict rules (`ctx.services.edit_rules`, a small model's) apply."""
    problem = guard.content_problem(new, content, "edit", path, small)
    if problem is not None:
        return problem
    dead = guard.code_defects("edit", raw, path, content, updated) if small else None
    if dead is not None:
        return dead
    error = guard.breaks_syntax(path, content, updated)
    return None if error is None else guard.syntax_refusal("edit", raw, path, error)


KEPT_ANCHOR_NOTE = (
    " (read as an insertion: the new lines went above old_string, which was kept;"
    " replacing it would have left code dead)"
)


def kept_anchor(content: str, old: str, new: str) -> tuple[str, str] | None:
    """The edit read as an insertion above `old` (new_string, then old_string again):
    the new file text and the new_string that gives it, or None when that reading
    does not apply.

    A small model "inserts" a function by replacing the next `def` line with it, which
    would leave the old body dead. Only tried when that literal edit is refused, for a
    whole-line old_string the new text does not contain; the caller keeps the reading
    only when it passes every check itself.
    """
    at = content.find(old)
    if at < 0 or old in new or not new.strip():
        return None
    end = at + len(old)
    if (at > 0 and content[at - 1] != "\n") or content[end : end + 1] not in ("", "\n"):
        return None  # old_string starts or ends inside a line
    top_level = new.startswith(("def ", "class ", "@")) and old.startswith(("def ", "class ", "@"))
    inserted = new.rstrip("\n") + ("\n\n\n" if top_level else "\n") + old
    return content.replace(old, inserted, 1), inserted


def _kept_anchor_update(raw: str, path: Path, content: str, old: str, new: str) -> str | None:
    """The file text under `kept_anchor`'s reading when that reading passes every check
    a small model's edit must pass; None otherwise (the literal refusal then stands)."""
    reading = kept_anchor(content, old, new)
    if reading is None:
        return None
    kept, inserted = reading
    return kept if refusal(raw, path, content, inserted, kept, small=True) is None else None


def _readable_prior(ctx: ToolContext, raw: str, path: Path) -> bytes:
    """The file's bytes once the Read rules allow them (before reading: no hint may quote
    a denied file, nor one hard-linked to it); ToolError for missing or binary files."""
    ctx.readable(path)
    prior = snapshot(path, raw)
    if prior is None:
        raise ToolError(not_found_message(ctx.cwd, raw, ctx.gate))
    opened = safe_fs.lstat(path)
    denied = None if opened is None else ctx.gate.check_opened(path, opened)
    if denied is not None:
        raise ToolError(denied)
    if is_binary(prior):
        raise ToolError(f"{raw} is a binary file; edit changes text files only")
    return prior


class EditArgs(Args, frozen=True, kw_only=True):
    path: str
    old_string: str
    new_string: str
    replace_all: bool = False


async def _run(args: EditArgs, ctx: ToolContext) -> ToolOutput:
    raw, note = guard.project_relative(ctx.cwd, args.path)
    old, new, replace_all = args.old_string, args.new_string, args.replace_all
    if not old:
        raise ToolError("old_string is empty; use write to create a file")
    path = safe_fs.resolve(ctx.resolve(raw))  # checked, read, written and journaled as is
    protected.require_changeable(
        "edit", raw, ctx.cwd, path, ctx.services.task_words, ctx.services.locked_tests
    )
    prior = _readable_prior(ctx, raw, path)
    content = prior.decode("utf-8", errors="replace")
    fs = ctx.services.files  # the editor's buffer may hold unsaved changes (ACP)
    if fs is not None:
        try:
            content = await fs.read_text(path)
        except OSError as exc:
            raise ToolError(f"cannot read {raw}: {exc.strerror or exc}") from exc
    if old == new:
        raise ToolError(
            "old_string and new_string are identical; nothing to change."
            + guard.trace_hint(ctx.services.task_words, content)
        )
    small = ctx.services.edit_rules.strict
    old, new = unwrapped(content, old, new, small or guard.proves_debris(path))
    old, new = unnumbered(content, old, new)
    updated, count = replace(raw, content, old, new, replace_all)
    refused = refusal(raw, path, content, new, updated, small)
    if refused is not None and small and count == 1:
        kept = _kept_anchor_update(raw, path, content, old, new)
        if kept is not None:
            updated, refused, note = kept, None, note + KEPT_ANCHOR_NOTE
    if refused is not None:
        return ToolOutput(ok=False, text=refused)
    verdict = await authorize(ctx, "edit", raw, path, content, updated)
    if not verdict.allowed:
        return ToolOutput(ok=False, text=verdict.message)
    hooks = await apply_change(ctx, raw, path, prior, verdict)
    text = f"Edited {raw} ({count} replacement{'' if count == 1 else 's'}){note}"
    code = path.suffix in (".py", ".pyi")
    undone = leftovers.leftover_note(raw, content, verdict.content, old, new) if code else ""
    return changed(raw, text + undone, hooks, content, verdict)


TOOL = from_args(
    _run,
    description=(
        "Replace old_string with new_string in a file. "
        "old_string must match exactly and be unique unless replace_all is set."
    ),
    kind="edit",
    title=titled("Edit {}", "path", "Edit a file"),
    asks=True,
    mutating=True,
)
