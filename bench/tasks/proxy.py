"""A recording reverse proxy: token counts read off the wire, stdlib only.

rift talks to the proxy on 127.0.0.1; every request is forwarded verbatim to
the upstream model server and the reply is streamed back chunk by chunk as it
arrives (so streaming, timeouts and cancellation behave as without the proxy).
On the way through, each reply is scanned for token counts:

* Ollama NDJSON: the `"done": true` line's `prompt_eval_count` / `eval_count`;
* OpenAI SSE (and plain JSON): a `usage` object's `prompt_tokens` /
  `completion_tokens`. Servers that repeat `usage` on every chunk are counted
  once: the last value seen in a reply wins.

    python bench/tasks/proxy.py --upstream http://gpu-box:11434 [--port N] [--log FILE]

prints the proxy's base URL first (give rift that URL plus the upstream's path,
e.g. `http://127.0.0.1:PORT/v1`) and one JSON record per request on stderr or
into --log. In-process: `with RecordingProxy(upstream) as proxy: proxy.url,
proxy.totals()`.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

CHAT_SUFFIXES = ("/api/chat", "/api/generate", "/chat/completions", "/completions")
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "host",
    }
)
READ_SIZE = 1 << 16


class UsageTap:
    """Scans a reply body, line by line, for the token counts of that reply."""

    def __init__(self) -> None:
        self._pending = b""
        self.prompt_tokens: int | None = None
        self.output_tokens: int | None = None

    def feed(self, data: bytes) -> None:
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._line(line)

    def close(self) -> None:
        if self._pending.strip():
            self._line(self._pending)
        self._pending = b""

    def _line(self, raw: bytes) -> None:
        line = raw.strip()
        if line.startswith(b"data:"):
            line = line[5:].strip()
        if not line.startswith(b"{") or (b"usage" not in line and b"eval_count" not in line):
            return
        try:
            obj = json.loads(line)
        except ValueError:
            return
        if isinstance(obj, dict):
            self._take(obj)

    def _take(self, obj: dict[str, Any]) -> None:
        if obj.get("done") is True and ("prompt_eval_count" in obj or "eval_count" in obj):
            self.prompt_tokens = _int(obj.get("prompt_eval_count"))
            self.output_tokens = _int(obj.get("eval_count"))
        usage = obj.get("usage")
        if isinstance(usage, dict) and usage:
            self.prompt_tokens = _int(usage.get("prompt_tokens"))
            self.output_tokens = _int(usage.get("completion_tokens", usage.get("output_tokens")))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the records are the log."""

    def setup(self) -> None:
        super().setup()
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def do_PUT(self) -> None:
        self._forward()

    def do_DELETE(self) -> None:
        self._forward()

    def do_HEAD(self) -> None:
        self._forward()

    def _body(self) -> bytes | None:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else None

    def _forward(self) -> None:
        started = time.perf_counter()
        body = self._body()
        proxy = self.server.proxy
        record: dict[str, Any] = {"method": self.command, "path": self.path, "status": 0}
        tap = UsageTap()
        upstream: http.client.HTTPConnection | None = None
        try:
            upstream = proxy.connect()
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            headers["Host"] = proxy.netloc
            upstream.request(self.command, self.path, body, headers)
            response = upstream.getresponse()
            record["status"] = response.status
            self._relay(response, tap)
        except (OSError, http.client.HTTPException) as exc:
            record["error"] = f"{type(exc).__name__}: {exc}"
            if record["status"] == 0:
                self._bad_gateway(str(exc))
            else:
                self.close_connection = True
        finally:
            if upstream is not None:
                upstream.close()
            tap.close()
            record["secs"] = round(time.perf_counter() - started, 4)
            record["chat"] = self.path.split("?", 1)[0].rstrip("/").endswith(CHAT_SUFFIXES)
            record["prompt_tokens"] = tap.prompt_tokens or 0
            record["output_tokens"] = tap.output_tokens or 0
            proxy.record(record)

    def _relay(self, response: http.client.HTTPResponse, tap: UsageTap) -> None:
        self.send_response(response.status, response.reason)
        for key, value in response.getheaders():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        bodyless = self.command == "HEAD" or response.status in (204, 304)
        if bodyless:
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while True:
            data = response.read1(READ_SIZE)
            if not data:
                break
            tap.feed(data)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")

    def _bad_gateway(self, reason: str) -> None:
        data = json.dumps({"error": f"proxy: upstream failed: {reason}"}).encode()
        with contextlib.suppress(OSError):
            self.send_response(502)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], proxy: RecordingProxy) -> None:
        super().__init__(address, _Handler)
        self.proxy = proxy


class RecordingProxy:
    """The proxy in-process: `with RecordingProxy("http://host:11434") as p: p.url`."""

    def __init__(
        self,
        upstream: str,
        *,
        port: int = 0,
        timeout: float = 900.0,
        log_path: Path | None = None,
    ) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"upstream must be an http(s) URL, not {upstream!r}")
        self.scheme = parts.scheme
        self.netloc = parts.netloc
        self.path = parts.path.rstrip("/")
        self.timeout = timeout
        self.log_path = log_path
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._port = port
        self._server: _ProxyServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The proxy's origin, `http://127.0.0.1:PORT`."""
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def client_url(self) -> str:
        """What to give rift as --host: the proxy's origin plus the upstream's path."""
        return self.url + self.path

    def connect(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        conn = cls(self.netloc, timeout=self.timeout)
        conn.connect()
        if conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def record(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(record)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")

    def totals(self) -> dict[str, int]:
        """Token counts and the number of model calls across chat requests so far."""
        with self._lock:
            chats = [r for r in self.records if r["chat"]]
        return {
            "prompt_tokens": sum(r["prompt_tokens"] for r in chats),
            "output_tokens": sum(r["output_tokens"] for r in chats),
            "llm_calls": len(chats),
        }

    def start(self) -> RecordingProxy:
        self._server = _ProxyServer(("127.0.0.1", self._port), self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="recording-proxy",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recording reverse proxy for model servers.")
    parser.add_argument("--upstream", required=True, help="model server URL, e.g. http://h:11434")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, help="append one JSON record per request here")
    args = parser.parse_args(argv)
    proxy = RecordingProxy(args.upstream, port=args.port, log_path=args.log).start()
    print(proxy.client_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()
        print(json.dumps(proxy.totals()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
