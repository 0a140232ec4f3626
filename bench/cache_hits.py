"""How much of each prompt llama.cpp's server reads from its cache during one rift turn.

    python bench/cache_hits.py [--gguf PATH] [--binary PATH] [--prompt TEXT]

A turn with tools is several requests, each re-sending the whole conversation.
A server that keeps the previous request's KV cache only re-reads what changed,
so long as the prompt's beginning stays byte-identical: the system prompt, the
tool schemas, the history. On a CPU the difference is minutes.

The figure: from the 2nd request of a turn on, `timings.cache_n / (cache_n +
prompt_n)` as the real `llama-server` reports it (goal: at least 95%). The
server is reached through a small recording proxy, so rift runs unchanged.

The baseline beside it: the same turn (the real model's calls and replies,
replayed from the session) against the scripted fake server, where the figure
is rift's own side of the bargain, measured on the request bodies: how much of
each request (tool schemas, then messages, serialized) is a byte-for-byte
prefix repeated from the request before. The same measure is printed for the
real run, so a gap between the two columns is the server's, not rift's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rift"
BINARY = CACHE / "llama-server/0.3.36/bin/llama-server"
MODELS = CACHE / "models"
GGUF_NAMES = ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
ALIAS = "bench-model"
PROMPT = (
    "Use the read tool on a.py, then on b.py, then on c.py, one call at a time."
    " Then answer in one sentence: which file defines main?"
)
FILES = {
    "a.py": "def helper(x):\n    return x * 2\n",
    "b.py": "from a import helper\n\n\ndef main():\n    print(helper(21))\n",
    "c.py": "CONSTANT = 3\n",
}
GOAL = 0.95


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------ the proxy


class _Proxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: int) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream = upstream
        self.records: list[dict[str, Any]] = []


class _Forward(BaseHTTPRequestHandler):
    """Forward one request to llama-server; stream the answer back; keep `timings`."""

    server: _Proxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._forward(b"")

    def do_POST(self) -> None:
        self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _forward(self, body: bytes) -> None:
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream, timeout=600)
        headers = {"Content-Type": "application/json"} if body else {}
        upstream.request(self.command, self.path, body or None, headers)
        answer = upstream.getresponse()
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.getheader("Content-Type") or "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        seen = b""
        while chunk := answer.read1(65536):
            seen += chunk
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        upstream.close()
        if self.path.endswith("/chat/completions"):
            self.server.records.append({"body": json.loads(body), "timings": _timings(seen)})


def _timings(stream: bytes) -> dict[str, Any]:
    """The last `timings` object in an SSE stream (llama.cpp sends it in the final chunk)."""
    found: dict[str, Any] = {}
    for line in stream.decode("utf-8", errors="replace").splitlines():
        if line.startswith("data:") and '"timings"' in line:
            data = json.loads(line[5:])
            found = data.get("timings") or found
    return found


# ------------------------------------------------------------------ measures


def prompt_text(body: dict[str, Any]) -> str:
    """What a server turns into the prompt, in its order: tool schemas, then messages."""
    tools = json.dumps(body.get("tools") or [], sort_keys=True)
    return tools + "".join(json.dumps(m, sort_keys=True) for m in body.get("messages") or [])


def prefix_kept(previous: str, current: str) -> float:
    """The share of `current` that is a byte-identical prefix taken over from `previous`."""
    same = 0
    for a, b in zip(previous, current, strict=False):
        if a != b:
            break
        same += 1
    return same / max(len(current), 1)


def _cache_share(timings: dict[str, Any]) -> tuple[int, int]:
    return int(timings.get("cache_n") or 0), int(timings.get("prompt_n") or 0)


# ------------------------------------------------------------------ runs


def _project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    for name, text in FILES.items():
        (project / name).write_text(text, encoding="utf-8")
    home = root / "home"
    for sub in (".config", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return project


def _env(root: Path) -> dict[str, str]:
    home = root / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_")}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        PYTHONPATH=str(Path(__file__).resolve().parent.parent / "src"),
    )
    return env


def _rift(root: Path, host: str, prompt: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "rift", "-p", prompt, "--host", host, "-m", ALIAS,
            "--temp", "0", "--max-iterations", "8", "--output-format", "json"]  # fmt: skip
    run = subprocess.run(
        argv, cwd=root / "project", env=_env(root), capture_output=True, text=True, timeout=1800
    )
    if run.returncode not in (0, 1):
        raise SystemExit(f"rift failed ({run.returncode}): {run.stderr[-2000:]}")
    return dict(json.loads(run.stdout))


def _start_llama(binary: Path, gguf: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    argv = [str(binary), "-m", str(gguf), "--alias", ALIAS, "--host", "127.0.0.1",
            "--port", str(port), "--jinja", "-c", "8192", "-np", "1", "-t", "2"]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if json.loads(r.read()).get("status") == "ok":
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"llama-server did not start: {log.read_text()[-2000:]}")


def _replay_script(session: Path) -> dict[str, Any]:
    """The real run's replies as a fake-server script (same calls, same texts)."""
    turns = []
    for message in json.loads(session.read_text())["messages"]:
        if message["role"] != "assistant":
            continue
        calls = [
            {
                "id": c.get("id"),
                "name": c["function"]["name"],
                "arguments": c["function"]["arguments"],
            }
            for c in message.get("tool_calls") or []
        ]
        turn: dict[str, Any] = {"content": message.get("content") or ""}
        if calls:
            turn["tool_calls"] = calls
        turns.append(turn)
    props = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}
    return {"wire": "openai", "props": props, "models": [{"name": ALIAS}], "turns": turns}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, default=BINARY)
    parser.add_argument("--gguf", type=Path, default=None)
    parser.add_argument("--prompt", default=PROMPT)
    args = parser.parse_args(argv)
    gguf = args.gguf or next((MODELS / n for n in GGUF_NAMES if (MODELS / n).exists()), None)
    if not args.binary.exists() or gguf is None:
        print(f"cache_hits: needs {args.binary} (scripts/build_llama_server.sh) and a GGUF")
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))  # tests/fakes/
    from fakes.fake_server import FakeModelServer

    root = Path(tempfile.mkdtemp(prefix="rift-cache-hits-"))
    try:
        _project(root)
        port = _free_port()
        llama = _start_llama(args.binary, gguf, port, root / "llama.log")
        proxy = _Proxy(port)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        try:
            started = time.monotonic()
            result = _rift(root, f"http://127.0.0.1:{proxy.server_address[1]}/v1", args.prompt)
            seconds = time.monotonic() - started
        finally:
            proxy.shutdown()
            llama.kill()
            llama.wait()
        real = proxy.records
        shutil.rmtree(root / "project")
        _project(root)
        with FakeModelServer(_replay_script(Path(result["session"]))) as fake:
            _rift(root, fake.v1_url, args.prompt)
            replayed = fake.chat_requests()
        _report(gguf, real, replayed, seconds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def _report(
    gguf: Path, real: list[dict[str, Any]], replayed: list[dict[str, Any]], seconds: float
) -> None:
    print(f"model {gguf.name}; {len(real)} requests in {seconds:.0f} s against llama-server")
    print(f"{'request':>7}  {'cache_n':>7}  {'prompt_n':>8}  {'cache hit':>9}"
          f"  {'prefix kept (real)':>18}  {'prefix kept (fake)':>18}")  # fmt: skip
    texts = [prompt_text(r["body"]) for r in real]
    fake_texts = [prompt_text(b) for b in replayed]
    total_cache = total_prompt = 0
    fake_kept: list[float] = []
    for i, record in enumerate(real):
        cache_n, prompt_n = _cache_share(record["timings"])
        hit = cache_n / max(cache_n + prompt_n, 1)
        kept = prefix_kept(texts[i - 1], texts[i]) if i else 0.0
        fake = prefix_kept(fake_texts[i - 1], fake_texts[i]) if 0 < i < len(fake_texts) else 0.0
        if i:
            total_cache += cache_n
            total_prompt += prompt_n
            fake_kept.append(fake)
        print(f"{i + 1:>7}  {cache_n:>7}  {prompt_n:>8}  {hit:>8.1%}  {kept:>18.1%}  {fake:>18.1%}")
    if len(real) < 2:
        print("only one request: the model answered without tools; nothing to compare")
        return
    share = total_cache / max(total_cache + total_prompt, 1)
    fake_mean = sum(fake_kept) / max(len(fake_kept), 1)
    verdict = "meets" if share >= GOAL else "misses"
    print(
        f"from the 2nd request on: {share:.1%} of prompt tokens from llama-server's cache"
        f" ({verdict} the {GOAL:.0%} goal); fake-server replay: {fake_mean:.1%} of each"
        " request a repeated prefix"
    )


if __name__ == "__main__":
    raise SystemExit(main())
