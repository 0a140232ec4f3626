"""`/share`: a conversation as one self-contained HTML file, to read or send.

Built from `replay`, so the transcript says what the live turns said; tool calls, their
output, thinking and diffs are folded (`<details>`). No scripts, no external styles or
fonts, and every text is escaped, since a transcript carries whatever a repository or a
model put into it.
"""

from __future__ import annotations

import html
import json
from itertools import groupby
from pathlib import Path

from rift.core.sessions.replay import Prompt, replay
from rift.events import Content, EditDiff, Event, Plan, Thinking, ToolResult, ToolStart
from rift.fs.paths import atomic_write
from rift.models.base import Message

_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f;background:#fff}
h1{font-size:1.2rem}.meta{color:#666;font-size:.85rem}
.prompt{background:#eef3ff;border-radius:8px;padding:.6rem .9rem;margin:1.4rem 0 .6rem;
white-space:pre-wrap}
.reply{white-space:pre-wrap;margin:.4rem 0}
details{margin:.3rem 0;border-left:3px solid #ccc;padding-left:.6rem}
details.fail{border-color:#d33}summary{cursor:pointer;color:#444}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;font-size:.85rem;white-space:pre-wrap}
.add{color:#176f2c}.del{color:#b3261e}.plan{list-style:none;padding-left:.4rem}
@media (prefers-color-scheme:dark){body{background:#111;color:#ddd}.prompt{background:#1c2433}
pre{background:#1b1b1b}summary{color:#aaa}}
"""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _diff_line(line: str) -> str:
    kind = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
    return f'<span class="{kind}">{_esc(line)}</span>' if kind else _esc(line)


def _render(item: Prompt | Event) -> str:
    """One replayed item as HTML; consecutive reply text is joined by the caller."""
    if isinstance(item, Prompt):
        return f'<div class="prompt">{_esc(item.text)}</div>'
    if isinstance(item, Thinking):
        return f"<details><summary>thinking</summary><pre>{_esc(item.text)}</pre></details>"
    if isinstance(item, ToolStart):
        args = json.dumps(item.args, indent=2, ensure_ascii=False)
        return (
            f"<details><summary>tool: {_esc(item.tool)}</summary><pre>{_esc(args)}</pre></details>"
        )
    if isinstance(item, ToolResult):
        css = "" if item.ok else ' class="fail"'
        label = "result" if item.ok else "failed"
        return (
            f"<details{css}><summary>{label}: {_esc(item.tool)}</summary>"
            f"<pre>{_esc(item.output or item.preview)}</pre></details>"
        )
    if isinstance(item, EditDiff):
        body = "\n".join(_diff_line(line) for line in item.diff)
        return (
            f"<details><summary>diff: {_esc(item.path)} +{item.added} −{item.removed}"
            f"</summary><pre>{body}</pre></details>"
        )
    if isinstance(item, Plan):
        rows = "".join(f"<li>{'☑' if i.done else '☐'} {_esc(i.text)}</li>" for i in item.items)
        return f'<ul class="plan">{rows}</ul>'
    return ""


def transcript_html(messages: list[Message], *, title: str, meta: str = "") -> str:
    """The conversation as a complete HTML document."""
    parts: list[str] = []
    for said, items in groupby(replay(messages), key=lambda item: isinstance(item, Content)):
        if said:
            reply = "".join(item.text for item in items if isinstance(item, Content))
            parts.append(f'<div class="reply">{_esc(reply)}</div>')
        else:
            parts += map(_render, items)
    body = "\n".join(p for p in parts if p)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width"><title>{_esc(title)}</title>'
        f"<style>{_STYLE}</style></head><body>\n<h1>{_esc(title)}</h1>"
        f'<p class="meta">{_esc(meta)}</p>\n{body}\n</body></html>\n'
    )


def share(messages: list[Message], target: Path, *, title: str, meta: str = "") -> Path:
    """Write the transcript to `target` atomically; never over anything but a regular file
    (a symlink planted there must not redirect the write)."""
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise OSError(f"{target} exists and is not a regular file")
    atomic_write(target, transcript_html(messages, title=title, meta=meta))
    return target
