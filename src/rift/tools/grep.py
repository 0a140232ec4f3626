"""grep: regex search over the project's text files.

Searches what a developer would: .gitignore is respected, hidden entries,
node_modules and binary files are skipped, and denied files are never opened.
ripgrep is used when it is on PATH, else a pure-Python walk (shared with glob)
gives the same answers, only slower.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta, Struct

from rift.errors import ToolError
from rift.tools.arguments import Args, from_args
from rift.tools.base import (
    Gate,
    ToolContext,
    ToolOutput,
    arg_text,
    in_path,
    is_binary,
    not_found_message,
)

MAX_HITS = 100
LINE_CAP = 250
MAX_SCANNED_FILES = 50_000
MAX_FILE_BYTES = 16 << 20
ALWAYS_SKIP = frozenset({".git", "node_modules"})
_RG_LINE_LIMIT = 32 << 20
"""rg --json prints a whole matching line as one JSON line; minified files make them long."""

# ----------------------------------------------------------- glob → regex


def _char_class(pattern: str, i: int) -> tuple[str, int] | None:
    """`[...]` starting at i as a regex class and the index after it, or None if unclosed."""
    j = i + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    end = pattern.find("]", j)
    if end < 0:
        return None
    body = pattern[i + 1 : end]
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    return "[" + body.replace("\\", "\\\\") + "]", end + 1


def glob_to_regex(pattern: str, *, star_crosses_slash: bool = False, braces: bool = False) -> str:
    """Translate a glob to a regex body (use with fullmatch).

    `**/` matches zero or more directories and a trailing `/**` everything
    below; `*` stays within one path segment unless `star_crosses_slash`.
    """
    star = ".*" if star_crosses_slash else "[^/]*"
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        step = 1
        if c == "*":
            out.append(star)
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (cls := _char_class(pattern, i)) is not None:
            out.append(cls[0])
            step = cls[1] - i
        elif c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            step = 2
        elif braces and c == "{":
            out.append("(?:")
            depth += 1
        elif braces and c == "}" and depth:
            out.append(")")
            depth -= 1
        elif braces and c == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += step
    return "".join(out) + ")" * depth


# ------------------------------------------------------------- .gitignore


class IgnoreRule(Struct, frozen=True):
    base: str
    """The .gitignore's directory relative to the walk's top ("" for the top itself)."""
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def parse_gitignore(text: str, base: str) -> list[IgnoreRule]:
    """Rules from one .gitignore: `*`, `**`, `?`, classes, leading `/`, trailing `/`, `!`."""
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate or line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = glob_to_regex(line.lstrip("/"))
        if not anchored:
            body = "(?:.*/)?" + body
        rules.append(IgnoreRule(base, re.compile(body, re.DOTALL), negate, dir_only))
    return rules


def is_ignored(rel: str, is_dir: bool, rules: list[IgnoreRule]) -> bool:
    """Git's rule: the last matching pattern wins; `!` re-includes."""
    ignored = False
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            sub = rel[len(rule.base) + 1 :]
        else:
            sub = rel
        if rule.regex.fullmatch(sub):
            ignored = not rule.negate
    return ignored


def _rel(path: Path, top: Path) -> str:
    rel = path.relative_to(top).as_posix()
    return "" if rel == "." else rel


def _load_rules(directory: Path, top: Path) -> list[IgnoreRule]:
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return parse_gitignore(text, _rel(directory, top))


def _denied(gate: Gate, path: Path) -> bool:
    """Read rules refuse `path`, or it is a hard link to a file they refuse (a second name
    for a denied file must not show it: the gate compares the inode)."""
    if gate.check_read(path) is not None:
        return True
    try:
        info = path.stat(follow_symlinks=False)
    except OSError:
        return False
    return info.st_nlink > 1 and gate.check_opened(path, info) is not None


def _walk_dir(directory: Path, top: Path, rules: list[IgnoreRule], gate: Gate) -> Iterator[Path]:
    rules = rules + _load_rules(directory, top)
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in ALWAYS_SKIP:
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file()
        except OSError:
            continue
        if is_ignored(_rel(path, top), is_dir, rules) or _denied(gate, path):
            continue
        if is_dir:
            yield from _walk_dir(path, top, rules, gate)
        elif is_file:
            yield path


def walk_files(root: Path, gate: Gate, top: Path | None = None) -> Iterator[Path]:
    """Files under `root`, depth-first in name order, less hidden entries, node_modules,
    denied paths, symlinked directories and what the .gitignore files from `top` down
    ignore."""
    if top is None or not root.is_relative_to(top):
        top = root
    rules: list[IgnoreRule] = []
    directory = top
    for part in root.relative_to(top).parts:
        rules += _load_rules(directory, top)
        directory = directory / part
    yield from _walk_dir(root, top, rules, gate)


# ------------------------------------------------------------------ search


class _Search(Struct, dict=True):
    """One grep call's settings and results, shared by both backends."""

    pattern: str
    root: Path
    ctx: ToolContext
    name_filter: re.Pattern[str] | None
    filter_by_path: bool
    hits: list[str]
    truncated: bool = False
    note: str = ""

    def wants(self, path: Path) -> bool:
        """The glob filter: a glob with a `/` matches the path below the root, else the name."""
        if self.name_filter is None:
            return True
        target = path.name
        if self.filter_by_path and path != self.root:
            target = path.relative_to(self.root).as_posix()
        return self.name_filter.fullmatch(target) is not None

    def add(self, path: Path, number: int, line: str) -> bool:
        """Record a hit; False once the cap is reached."""
        if len(self.hits) >= MAX_HITS:
            self.truncated = True
            return False
        try:
            shown = path.relative_to(self.ctx.cwd).as_posix()
        except ValueError:
            shown = str(path)
        self.hits.append(f"{shown}:{number}: {line.rstrip()[:LINE_CAP].rstrip()}")
        return True


def _python_search(search: _Search, regex: re.Pattern[str]) -> None:
    root = search.root
    files = iter([root]) if root.is_file() else walk_files(root, search.ctx.gate, search.ctx.cwd)
    for scanned, path in enumerate(files):
        if scanned >= MAX_SCANNED_FILES:
            search.note = f"\n[search stopped after {MAX_SCANNED_FILES} files; narrow the path]"
            return
        if not search.wants(path):
            continue
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if is_binary(data):
            continue
        text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), 1):
            if regex.search(line) and not search.add(path, number, line):
                return


def _rg_text(field: dict[str, Any]) -> str:
    if "text" in field:
        return str(field["text"])
    return base64.b64decode(field.get("bytes", "")).decode("utf-8", errors="replace")


async def _consume(stdout: asyncio.StreamReader, search: _Search) -> bool:
    """Feed rg's JSON matches into `search`; False when it stopped early (cap or bad line)."""
    denied: dict[Path, bool] = {}
    try:
        async for raw in stdout:
            message = json.loads(raw)
            if message.get("type") != "match":
                continue
            data = message["data"]
            path = Path(_rg_text(data["path"]))
            if path not in denied:
                denied[path] = _denied(search.ctx.gate, path)
            if denied[path] or not search.wants(path):
                continue
            if not search.add(path, int(data["line_number"]), _rg_text(data["lines"])):
                return False
    except ValueError:  # a line longer than the stream limit, or not JSON
        return False
    return True


async def _rg_search(rg: str, search: _Search) -> str | None:
    """Search with ripgrep; returns its error text when it refused the pattern."""
    proc = await asyncio.create_subprocess_exec(
        rg, "--json", "--no-config", "--no-require-git", "--sort", "path",
        "--glob", "!node_modules", "-e", search.pattern, "--", str(search.root),
        cwd=search.ctx.cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=_RG_LINE_LIMIT,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.create_task(proc.stderr.read())
    completed = False
    try:
        completed = await _consume(proc.stdout, search)
    finally:
        if not completed and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        stderr = (await stderr_task).decode("utf-8", errors="replace")
        await proc.wait()
    if completed and proc.returncode == 2 and not search.hits and "regex" in stderr:
        return stderr.strip()
    return None


class GrepArgs(Args, frozen=True, kw_only=True):
    pattern: str
    path: str = "."
    glob: Annotated[str, Meta(description="e.g. *.py")] = ""


async def _run(args: GrepArgs, ctx: ToolContext) -> ToolOutput:
    import shutil  # on first use: shutil loads bz2, lzma and fnmatch

    pattern, raw, glob = args.pattern, args.path, args.glob
    root = ctx.readable(ctx.resolve(raw))
    if not root.exists():
        raise ToolError(not_found_message(ctx.cwd, raw, ctx.gate))
    name_filter = re.compile(glob_to_regex(glob, braces=True), re.DOTALL) if glob else None
    search = _Search(pattern, root, ctx, name_filter, "/" in glob, [])
    backend = ctx.services.grep_backend
    rg = shutil.which("rg") if backend in (None, "rg") else None
    rg_error = await _rg_search(rg, search) if rg else None
    if rg is None or rg_error is not None:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"invalid regex {pattern!r}: {rg_error or exc}") from exc
        search.hits.clear()
        await asyncio.to_thread(_python_search, search, regex)
    if not search.hits:
        return ToolOutput(ok=True, text="no matches" + search.note)
    text = "\n".join(search.hits) + search.note
    if search.truncated:
        text += f"\n[stopped at {MAX_HITS} matches; narrow the pattern or the path]"
    return ToolOutput(ok=True, text=text)


def _title(args: dict[str, Any]) -> str:
    return f"Search for '{arg_text(args, 'pattern')}'{in_path(args)}"


TOOL = from_args(
    _run,
    description=(
        "Search file contents with a regex; prints path:line: text. "
        "Skips gitignored, hidden and binary files; glob filters file names."
    ),
    kind="search",
    title=_title,
)
