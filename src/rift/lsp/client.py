"""Diagnostics after edits from a real language server.

After a write or edit, the file's new text goes to a language server for its type
(started on first use), and the errors and warnings the change *introduced* (matched by
severity, code and message, not line) are appended to the tool result, so the model fixes
a type error in the next step instead of three turns later.

A small JSON-RPC-over-stdio client with plain dicts, not pygls's: that one pipes the
server's stderr without reading it (a chatty server blocks) and costs ~0.5 s of import.
Anything that goes wrong is silent, and a server that fails to start is not retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from rift.fs.child_env import child_environ

if TYPE_CHECKING:
    from rift.config.records import LspConfig
    from rift.tools.sandbox import Bubblewrap

log = logging.getLogger("rift.lsp")

START_TIMEOUT = 10.0
"""Spawn + initialize; the first analysis of a project can be slow."""
CHECK_TIMEOUT = 5.0
SETTLE = 0.25
"""After a push, how long to wait for a later push (servers may publish in stages)."""
REPORT_CAP = 10
HEADER = "\n── diagnostics ──\n"

_EXTENSIONS = {
    "python": ".py .pyi",
    "typescript": ".ts .tsx .js .jsx .mjs .cjs",
    "go": ".go",
    "rust": ".rs",
    "c": ".c .h .cc .cpp .hpp",
}
LANGUAGES = {ext: language for language, exts in _EXTENSIONS.items() for ext in exts.split()}
LANGUAGE_IDS = {".ts": "typescript", ".tsx": "typescriptreact", ".jsx": "javascriptreact"}
SERVERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "python": (
        ("pyright-langserver", "--stdio"),
        ("basedpyright-langserver", "--stdio"),
        ("pylsp",),
        ("ruff", "server"),
    ),
    "typescript": (("typescript-language-server", "--stdio"),),
    "go": (("gopls",),),
    "rust": (("rust-analyzer",),),
    "c": (("clangd",),),
}
"""Built-in registry: the first one on PATH serves the language."""
_SEVERITY = {1: "error", 2: "warning"}


class LspError(Exception):
    """The server misbehaved or went away; callers stay silent."""


class LspClient:
    """One language server over stdio: requests, notifications, pushed diagnostics."""

    def __init__(
        self, argv: tuple[str, ...], root: Path, init_options: dict[str, Any] | None = None
    ) -> None:
        self.argv = argv
        self.root = root
        self.init_options = init_options or {}
        """`initializationOptions` (origin.py: the user's own tsserver, for one)."""
        self.capabilities: dict[str, Any] = {}
        self.versions: dict[str, int] = {}
        """Open documents (uri → version last sent)."""
        self.pushed: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        self._push_seen = asyncio.Event()
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ids = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._initialized = False
        self._gone = False
        """The server's output ended: nothing more will ever be answered."""

    async def start(self) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.root,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C meant for rift does not kill it mid-answer
            env=child_environ(),  # no API keys: a server runs the project's code
        )
        self._reader = asyncio.create_task(self._read_loop())
        root_uri = self.root.as_uri()
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root_uri,
                "initializationOptions": self.init_options,
                "workspaceFolders": [{"uri": root_uri, "name": self.root.name}],
                "capabilities": {
                    "textDocument": {
                        "synchronization": {"didSave": False},
                        "publishDiagnostics": {"versionSupport": True},
                        "diagnostic": {"dynamicRegistration": False},
                    },
                    "workspace": {"configuration": True, "workspaceFolders": True},
                },
            },
        )
        self.capabilities = (result or {}).get("capabilities") or {}
        self.notify("initialized", {})
        self._initialized = True

    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None and not self._gone

    async def request(self, method: str, params: Any) -> Any:
        self._ids += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[self._ids] = future
        self._send({"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params})
        try:
            return await future
        finally:
            self._waiting.pop(self._ids, None)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _send(self, message: dict[str, Any]) -> None:
        if self._proc is None or self._proc.stdin is None or not self.alive():
            raise LspError("server is not running")
        body = json.dumps(message).encode("utf-8")
        self._proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def _read_loop(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout = self._proc.stdout
        try:
            while True:
                length = 0
                while (line := await stdout.readline()) not in (b"\r\n", b"\n"):
                    if not line:
                        raise LspError("server closed its output")
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                self._dispatch(json.loads(await stdout.readexactly(length)))
        except (LspError, ValueError, asyncio.IncompleteReadError, ConnectionError) as exc:
            self._gone = True
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(LspError(str(exc)))

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:  # a response to one of ours
            future = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
            if future is not None and not future.done():
                if "error" in message:
                    future.set_exception(LspError(str(message["error"])))
                else:
                    future.set_result(message.get("result"))
        elif "id" in message:  # the server asks us something: answer so it never stalls
            params = message.get("params") or {}
            result: Any = None
            if method == "workspace/configuration":
                result = [None for _ in params.get("items", [])]
            elif method == "workspace/workspaceFolders":
                result = [{"uri": self.root.as_uri(), "name": self.root.name}]
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif method == "textDocument/publishDiagnostics":
            params = message.get("params") or {}
            uri = str(params.get("uri", ""))
            self.pushed[uri] = (params.get("version"), list(params.get("diagnostics") or []))
            self._push_seen.set()

    async def diagnostics(self, path: Path, text: str) -> list[dict[str, Any]]:
        """Send `text` as the document's content and return the server's diagnostics."""
        uri = path.as_uri()
        version = self.versions.get(uri, 0) + 1
        self.pushed.pop(uri, None)
        document: dict[str, Any] = {"uri": uri, "version": version}
        if uri in self.versions:
            changes = [{"text": text}]
            self.notify(
                "textDocument/didChange", {"textDocument": document, "contentChanges": changes}
            )
        else:
            suffix = path.suffix.lower()
            document.update(languageId=LANGUAGE_IDS.get(suffix, LANGUAGES.get(suffix)), text=text)
            self.notify("textDocument/didOpen", {"textDocument": document})
        self.versions[uri] = version
        if self.capabilities.get("diagnosticProvider"):
            report = await self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            return list((report or {}).get("items") or [])
        return await self._pushed_for(uri, version)

    async def _pushed_for(self, uri: str, version: int) -> list[dict[str, Any]]:
        def current() -> list[dict[str, Any]] | None:
            entry = self.pushed.get(uri)
            if entry is None or (entry[0] is not None and entry[0] != version):
                return None
            return entry[1]

        while (found := current()) is None:
            self._push_seen.clear()
            await self._push_seen.wait()
        with contextlib.suppress(TimeoutError):  # a later stage may refine the first push
            self._push_seen.clear()
            await asyncio.wait_for(self._push_seen.wait(), SETTLE)
        return current() or found

    async def close(self) -> None:
        if self._proc is None:
            return
        if self.alive() and self._initialized:  # the polite way; a hung server is just killed
            with contextlib.suppress(LspError, TimeoutError, OSError, ConnectionError):
                await asyncio.wait_for(self.request("shutdown", None), 2.0)
                self.notify("exit", None)
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            await asyncio.wait_for(self._proc.wait(), 2.0 if self._initialized else 0.1)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            await self._proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader


def _key(diagnostic: dict[str, Any]) -> tuple[Any, str, str]:
    return (
        diagnostic.get("severity"),
        str(diagnostic.get("code", "")),
        diagnostic.get("message", ""),
    )


def new_problems(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Errors and warnings in `after` that `before` did not already have (as a multiset)."""
    seen = Counter(_key(d) for d in before)
    fresh: list[dict[str, Any]] = []
    for diagnostic in after:
        if diagnostic.get("severity", 1) not in _SEVERITY:
            continue
        key = _key(diagnostic)
        if seen[key] > 0:
            seen[key] -= 1
        else:
            fresh.append(diagnostic)
    return fresh


def format_report(shown: str, problems: list[dict[str, Any]]) -> str:
    """`path:line:col severity: [code] message` lines, capped, under the diagnostics header."""
    problems = sorted(problems, key=lambda d: (d.get("severity", 1), _start(d)))
    lines = []
    for diagnostic in problems[:REPORT_CAP]:
        line, col = _start(diagnostic)
        code = diagnostic.get("code")
        message = " ".join(str(diagnostic.get("message", "")).split())
        tag = f"[{code}] " if code not in (None, "") else ""
        severity = _SEVERITY.get(diagnostic.get("severity", 1), "error")
        lines.append(f"{shown}:{line + 1}:{col + 1} {severity}: {tag}{message}")
    if len(problems) > REPORT_CAP:
        lines.append(f"({len(problems) - REPORT_CAP} more)")
    return HEADER + "\n".join(lines)


def _start(diagnostic: dict[str, Any]) -> tuple[int, int]:
    start = (diagnostic.get("range") or {}).get("start") or {}
    return int(start.get("line", 0)), int(start.get("character", 0))


class LspService(Struct, dict=True):
    """The session's language servers, one per language, started on first need."""

    config: LspConfig
    root: Path
    start_timeout: float = START_TIMEOUT
    sandbox: Bubblewrap | None = None
    """With the bwrap sandbox on, servers run inside it: they execute project code."""
    _clients: dict[str, LspClient | None] = field(default_factory=dict)
    """Language → running client, or None when it has none (not found, failed to start)."""
    _last: dict[Path, list[dict[str, Any]]] = field(default_factory=dict)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def language_of(self, path: Path) -> str | None:
        suffix = path.suffix.lower()
        for key in (suffix, suffix.lstrip(".")):  # a configured extension names its own server
            if key in self.config.servers:
                return key
        return LANGUAGES.get(suffix)

    def command_for(self, language: str) -> tuple[str, ...] | None:
        import shutil  # on first use: shutil loads bz2, lzma and fnmatch

        if language in self.config.servers:
            configured = self.config.servers[language]
            return configured if configured and shutil.which(configured[0]) else None
        return next((argv for argv in SERVERS.get(language, ()) if shutil.which(argv[0])), None)

    async def report(self, path: Path, shown: str, old: str | None, new: str) -> str:
        """Text to append to a write/edit result: "" when nothing new or anything failed."""
        language = self.language_of(path) if self.config.enabled else None
        if language is None:
            return ""
        try:
            async with self._lock:  # one conversation with each server at a time
                problems = await asyncio.wait_for(
                    self._check(language, path, old, new), self.start_timeout + CHECK_TIMEOUT
                )
        except Exception as exc:  # any server failure leaves the edit result untouched
            log.info("lsp: no diagnostics for %s: %r", path, exc)
            return ""
        return format_report(shown, problems) if problems else ""

    async def _check(
        self, language: str, path: Path, old: str | None, new: str
    ) -> list[dict[str, Any]]:
        client = await self._client(language)
        if client is None:
            return []
        path = path.resolve()
        if path not in self._last:
            self._last[path] = []
            if old is not None:  # the baseline: what was already wrong before this change
                self._last[path] = await asyncio.wait_for(
                    client.diagnostics(path, old), CHECK_TIMEOUT
                )
        after = await asyncio.wait_for(client.diagnostics(path, new), CHECK_TIMEOUT)
        before, self._last[path] = self._last[path], after
        return new_problems(before, after)

    async def _client(self, language: str) -> LspClient | None:
        client = self._clients.get(language)
        if client is not None and client.alive():
            return client
        if language in self._clients:  # it had none, or it died: not again this session
            return None
        self._clients[language] = None
        argv = self.command_for(language)
        if argv is None:
            return None
        from rift.lsp.origin import startable

        options = startable(argv, self.root, configured=language in self.config.servers)
        if options is None:  # the project's own binary or tsserver: never run it
            log.info("lsp: not starting %s: it would run code from the project", argv[0])
            return None
        if self.sandbox is not None:
            argv = (*self.sandbox.argv(self.root), *argv)
        client = LspClient(argv, self.root, options)
        try:
            await asyncio.wait_for(client.start(), self.start_timeout)
        except BaseException:
            await client.close()
            raise
        self._clients[language] = client
        return client

    def status(self) -> dict[str, str]:
        """Language → the server serving it (for a `/lsp` display)."""
        return {lang: " ".join(c.argv) for lang, c in self._clients.items() if c is not None}

    async def aclose(self) -> None:
        for client in self._clients.values():
            if client is not None:
                await client.close()
        self._clients.clear()
