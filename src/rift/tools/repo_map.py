"""repo_map: the project's most important source files with their top symbols.

One map of the files everything else imports, with their outlines, replaces the
dozens of ls/read calls of a first look. Ranked by how many files import a file (by
its lower-case stem), newest first on ties; outlines are cached per root, keyed by
mtime and size, in memory and in the data dir.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any

from msgspec import Struct

from rift.errors import ToolError
from rift.fs.paths import atomic_write
from rift.tools import _outline
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, titled
from rift.tools.grep import walk_files

DEFAULT_FILES = 20
MAX_FILES = 60
CANDIDATES = 200
"""Only the newest this many source files are considered (keeps a huge repo cheap)."""
OUTPUT_CAP = 24_000
SYMBOLS_PER_FILE = 25
CACHED_ROOTS = 32
"""Outline caches kept on disk, one per repository root mapped, least recently used dropped."""
READ_CAP = 1_000_000
"""Bigger files (generated bundles) are listed without an outline."""

_IMPORT_PATTERNS = (
    (r"^\s*from\s+([\w.]+)\s+import\s+([\w., ]+)", re.M),  # python
    (r"^\s*import\s+([\w., ]+)$", re.M),  # python
    (r"""(?:from|import|require\()\s*['"]([^'"]+)['"]""", 0),  # js/ts, go
    (r"^\s*(?:pub\s+)?(?:use|mod)\s+([\w:]+)", re.M),  # rust
)
"""(pattern, flags): compiled by `re` on first use and cached there, not at import."""
_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_INDEX_STEMS = frozenset({"__init__", "index", "mod", "lib", "main"})


class FileInfo(Struct, frozen=True):
    rel: str
    mtime_ns: int
    size: int
    symbols: list[_outline.Symbol]
    imports: frozenset[str]

    def stem(self) -> str:
        path = Path(self.rel)
        stem = path.stem.lower()
        if stem in _INDEX_STEMS and path.parent.name:
            return path.parent.name.lower()
        return stem


def imported_words(text: str) -> frozenset[str]:
    """Lower-case module-path words a file imports (`from a.b import c` gives a, b, c)."""
    words: set[str] = set()
    for pattern, flags in _IMPORT_PATTERNS:
        for match in re.finditer(pattern, text, flags):
            for group in match.groups():
                if group:
                    words.update(w.lower() for w in re.findall(_WORD, group))
    return frozenset(words)


class OutlineCache:
    """Per-root outlines keyed by (mtime, size); persisted as one JSON file per root."""

    def __init__(self, root: Path, store_dir: Path | None) -> None:
        import hashlib  # only when repo_map runs: _hashlib loads libcrypto

        digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
        self.file = store_dir / f"{digest}.json" if store_dir is not None else None
        self.entries: dict[str, list[Any]] = {}
        self.dirty = False
        if self.file is not None:
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(self.file.read_text(encoding="utf-8"))
                if isinstance(data, dict):
                    self.entries = data

    def get(self, rel: str, mtime_ns: int, size: int) -> FileInfo | None:
        entry = self.entries.get(rel)
        if not isinstance(entry, list) or len(entry) != 4 or entry[:2] != [mtime_ns, size]:
            return None
        try:
            symbols = [_outline.Symbol(int(a), int(b), str(c)) for a, b, c in entry[2]]
            return FileInfo(rel, mtime_ns, size, symbols, frozenset(map(str, entry[3])))
        except (TypeError, ValueError):
            return None

    def put(self, info: FileInfo) -> None:
        symbols = [[s.line, s.depth, s.signature] for s in info.symbols]
        self.entries[info.rel] = [info.mtime_ns, info.size, symbols, sorted(info.imports)]
        self.dirty = True

    def save(self, keep: set[str]) -> None:
        """Persist, dropping files no longer considered (deleted or aged out)."""
        stale = set(self.entries) - keep
        for rel in stale:
            del self.entries[rel]
        if self.file is None:
            return
        if not (self.dirty or stale):
            with contextlib.suppress(OSError):
                os.utime(self.file)  # used: keeps its place in the LRU
            return
        with contextlib.suppress(OSError):
            atomic_write(self.file, json.dumps(self.entries))
            self.dirty = False
            _prune(self.file.parent)


def _prune(store: Path) -> None:
    """Keep the outline caches of the most recently mapped repositories only (LRU)."""
    files = sorted(store.glob("*.json"), key=lambda f: f.stat().st_mtime_ns, reverse=True)
    for old in files[CACHED_ROOTS:]:
        old.unlink(missing_ok=True)


_MEMORY: dict[Path, OutlineCache] = {}


def _cache_for(root: Path, ctx: ToolContext) -> OutlineCache:
    cache = _MEMORY.get(root)
    if cache is None:
        config = ctx.services.settings
        store = config.paths.data_dir / "outline-cache" if config is not None else None
        cache = _MEMORY[root] = OutlineCache(root, store)
    return cache


def _candidates(root: Path, ctx: ToolContext) -> list[tuple[Path, os.stat_result]]:
    found: list[tuple[Path, os.stat_result]] = []
    for path in walk_files(root, ctx.gate, ctx.cwd):
        if _outline.supported(path):
            with contextlib.suppress(OSError):
                found.append((path, path.stat()))
    found.sort(key=lambda item: -item[1].st_mtime_ns)
    return found[:CANDIDATES]


def _info(path: Path, st: os.stat_result, rel: str, cache: OutlineCache) -> FileInfo:
    cached = cache.get(rel, st.st_mtime_ns, st.st_size)
    if cached is not None:
        return cached
    symbols: list[_outline.Symbol] = []
    imports: frozenset[str] = frozenset()
    if st.st_size <= READ_CAP:
        with contextlib.suppress(OSError):
            text = path.read_text(encoding="utf-8", errors="replace")
            symbols = _outline.outline(path, text) or []
            imports = imported_words(text)
    info = FileInfo(rel, st.st_mtime_ns, st.st_size, symbols, imports)
    cache.put(info)
    return info


def rank(files: list[FileInfo]) -> list[tuple[FileInfo, int]]:
    """Files with their import in-degree, most imported first, newest first on ties."""
    ranked: list[tuple[FileInfo, int]] = []
    for info in files:
        stem = info.stem()
        degree = sum(1 for other in files if other is not info and stem in other.imports)
        ranked.append((info, degree))
    ranked.sort(key=lambda item: (-item[1], -item[0].mtime_ns, item[0].rel))
    return ranked


def _section(info: FileInfo) -> str:
    symbols = info.symbols[:SYMBOLS_PER_FILE]
    body = _outline.render(symbols)
    more = len(info.symbols) - len(symbols)
    if more > 0:
        body += f"\n      … {more} more (outline {info.rel})"
    return f"=== {info.rel} ===\n{body}\n"


class RepoMapArgs(Args, frozen=True, kw_only=True):
    path: str = "."
    max_files: int = DEFAULT_FILES


async def _run(args: RepoMapArgs, ctx: ToolContext) -> ToolOutput:
    raw = args.path
    wanted = max(1, min(args.max_files or DEFAULT_FILES, MAX_FILES))
    root = ctx.readable(ctx.resolve(raw).resolve())
    if not root.is_dir():
        raise ToolError(f"{raw} is not a directory; repo_map maps a directory (try outline)")
    cache = _cache_for(root, ctx)
    infos = [
        _info(path, st, path.relative_to(root).as_posix(), cache)
        for path, st in _candidates(root, ctx)
    ]
    cache.save({info.rel for info in infos})
    if not infos:
        return ToolOutput(ok=True, text=f"no supported source files under {raw}")
    parts: list[str] = []
    size = 0
    outlined = [(info, degree) for info, degree in rank(infos) if info.symbols]
    for info, _degree in outlined[:wanted]:  # an empty __init__.py says nothing
        section = _section(info)
        size += len(section.encode("utf-8"))
        if size > OUTPUT_CAP and parts:
            break
        parts.append(section)
    footer = (
        f"({len(parts)} of {len(infos)} source files shown, most imported first;"
        " outline or read a file for more)"
    )
    return ToolOutput(ok=True, text="\n".join(parts) + "\n" + footer)


TOOL = from_args(
    _run,
    description=(
        "Map a repository: its most imported source files with their classes and functions. "
        f"max_files defaults to {DEFAULT_FILES} (at most {MAX_FILES})."
    ),
    kind="read",
    title=titled("Map {}", "path", "Map the repository"),
)
