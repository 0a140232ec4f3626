"""A scripted fake model server that speaks Ollama's, OpenAI's and Anthropic's wire formats.

It is a real HTTP server on 127.0.0.1 (stdlib only), so tests drive rift's
actual HTTP stack: retries, timeouts, chunked streams and dropped connections
all happen for real. It lives in tests/fakes/, not in the installed package, so
that integration tests, benchmarks and people reproducing a bug from a checkout
can all use the same one.

Endpoints (matched on the path *suffix*, so `/coding/v1/models` works too):

    GET  .../api/tags            Ollama model list
    POST .../api/show            Ollama model details; unknown model → 404
    POST .../api/chat            Ollama chat, NDJSON stream
    GET  .../models              OpenAI (and Anthropic) model list (`/v1/models`)
    POST .../chat/completions    OpenAI chat, SSE stream
    POST .../messages            Anthropic Messages, SSE stream of typed events
                                 (thinking blocks end with signature "fake-signature")

Script format (a JSON object; every key optional)::

    {
      "models": [                      # default: [{"name": "fake-model",
        {"name": "fake-model",         #   "capabilities": ["tools"], "context_length": 32768}]
         "capabilities": ["tools", "thinking", "vision"],
         "context_length": 32768,      # null/absent: not reported
         "extra": {...},               # merged into the /v1/models entry (e.g.
                                       #   {"meta": {"n_ctx_train": 8192}});
         "parameters": "num_ctx 8192"} # /api/show's Modelfile parameters (absent: none)
      ],                               # names may repeat (served as given)
      "list_status": 503,              # model lists (tags, /models) fail with it
      "props": {...},                  # GET /props answers this object (llama.cpp's
                                       #   server: default_generation_settings.n_ctx,
                                       #   total_slots, modalities, chat_template);
                                       #   absent: 404, as on every other server
      "slots": [...],                  # GET /slots answers this list (absent: 404)
      "wire": "openai",                # answer only this protocol ("ollama", "openai",
                                       #   "anthropic"); others 404, as a llama.cpp or
                                       #   vLLM server would (default: all of them)
      "turns": [ TURN, ... ]
    }

Each request to a chat endpoint consumes one turn. A request takes the first
unconsumed turn whose `match` substring occurs in its messages (their JSON
text or their plain contents); a request that matches no such turn takes the
first unconsumed turn *without* `match`. This lets a parent conversation and
a sub-agent conversation follow separate scripts. Once nothing is left the
reply is the plain text "(script exhausted)".

TURN fields (all optional)::

    match             substring selecting this turn (see above)
    repeat            serve this turn N times before it is used up (default 1)
    thinking          string (one chunk) or list of strings (one chunk each)
    content           string (one chunk) or list of strings (one chunk each)
    content_repeat    {"text": "x", "count": 100000}: `count` more content chunks
    content_sequence  {"count": 100000, "prefix": "w"}: `count` more content chunks,
                      all different ("w0 ", "w1 ", ...), sent after content_repeat:
                      a long stream that never trips rift's repetition guard
    garbage           text sent as one raw line after thinking/content
    tool_calls        [{"id"?, "name", "arguments": object or raw string}];
                      OpenAI format splits each call's arguments over two chunks,
                      Ollama format sends one line per call (no id unless given)
    prompt_progress   OpenAI: [[processed, total, cached, time_ms?], ...]: llama.cpp's
                      `prompt_progress` chunks (sent first, when the request asked
                      for `return_progress`), one every chunk_delay; time_ms
                      (the server's reading time so far) defaults to 1
    usage             {"prompt_tokens", "output_tokens", "eval_duration_s"};
                      defaults: body size / 4, number of chunks, 1 ms per chunk
    timings           OpenAI: llama-server's `timings` object ({"prompt_n",
                      "prompt_ms", "predicted_n", "predicted_ms", "cache_n"}),
                      sent verbatim on the final chunk
                      (Ollama: its `prompt_ms` becomes `prompt_eval_duration`)
    finish_reason     OpenAI finish reason (default "tool_calls" or "stop")
    status            answer with this HTTP status instead of a stream ...
    error             ... and this message (default "scripted failure")
    error_shape       "string" {"error": msg} (Ollama default), "object"
                      {"error": {"message": msg}} (OpenAI default), "plain" text
    reject_stream_options  answer 400 "stream_options is not supported" to a
                      request carrying stream_options, without using the turn up
    delay_first_byte  seconds to wait before sending anything at all
    chunk_delay       seconds between chunks (0: many chunks per write)
    drop_after        close the connection abruptly after N chunks (lines)
    never_end         true or a string: after content, stream that text (" "
                      for true) every chunk_delay (min 10 ms) until disconnected
    never_end_thinking  the same, as reasoning (thinking) chunks: an endless
                      chain of thought
    omit_done         OpenAI: leave out the final `data: [DONE]`
    truncate          end the body cleanly right after content/garbage: no tool
                      calls, no done line, no finish_reason, no usage
    final_newline     false: the last line has no trailing newline

A "chunk" is one NDJSON line or one SSE event. Streams use chunked transfer
encoding, so a dropped connection is visible to the client as such.

Every request is logged as one JSON line: the request body object (or
{"_raw": text}) plus "_method", "_path", "_t" (arrival, Unix seconds) and, when one
was sent, "_auth" (the Authorization header), "_api_key" (x-api-key) and
"_anthropic_version" (anthropic-version). In-process, `requests()` returns the
same records and `max_in_flight` the most chat requests answered at once (a
pool's slot limit, given by `props.total_slots`, shows there). Command line::

    python tests/fakes/fake_server.py --script FILE [--port N] [--log FILE]

prints its base URL (`http://127.0.0.1:PORT`) as the first stdout line and
serves until killed. Use `URL` for Ollama and `URL/v1` for OpenAI clients; an
Anthropic client (a provider of `kind: "anthropic"`) takes `URL` or `URL/v1`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

if not __package__:  # run as a script: the `fakes` package is the folder this file is in
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakes.fake_replies import EXHAUSTED_TEXT
from fakes.fake_serving import CHAT_SUFFIXES, Server, State

__all__ = ["EXHAUSTED_TEXT", "FakeModelServer", "main"]


class FakeModelServer:
    """The fake server, in-process: `with FakeModelServer(script) as server: server.url`."""

    def __init__(
        self,
        script: dict[str, Any] | str | Path | None = None,
        log_path: str | Path | None = None,
        port: int = 0,
    ) -> None:
        """Args:
        script: the script as a dict, or the path of a JSON file holding it.
        log_path: where request records go (one JSON line each); default a temp file.
        port: the port to listen on; 0 picks a free one.
        """
        if isinstance(script, str | Path):
            script = json.loads(Path(script).read_text(encoding="utf-8"))
        if not isinstance(script, dict):
            script = {}
        if log_path is None:
            fd, log_path = tempfile.mkstemp(prefix="rift-fake-", suffix=".jsonl")
            os.close(fd)
        self.log_path = Path(log_path)
        self._state = State(script, self.log_path)
        self._port = port
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL for Ollama clients, `http://127.0.0.1:PORT`."""
        if self._server is None:
            raise RuntimeError("the fake server is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def v1_url(self) -> str:
        """Base URL for OpenAI-compatible clients (`url` + `/v1`)."""
        return self.url + "/v1"

    def start(self) -> FakeModelServer:
        self._server = Server(("127.0.0.1", self._port), self._state)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut open keep-alive connections, as a dead server would."""
        self._state.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def requests(self, path_suffix: str | None = None) -> list[dict[str, Any]]:
        """Logged request records (body plus `_method`, `_path`), optionally by path suffix."""
        records = list(self._state.records)
        if path_suffix is None:
            return records
        return [r for r in records if r["_path"].split("?", 1)[0].endswith(path_suffix)]

    @property
    def max_in_flight(self) -> int:
        """The most chat requests this server answered at once."""
        return self._state.max_in_flight

    def chat_requests(self) -> list[dict[str, Any]]:
        """Only the chat requests, in arrival order."""
        return [r for r in self._state.records if r["_path"].endswith(CHAT_SUFFIXES)]

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve a script until SIGTERM or Ctrl-C; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(prog="python tests/fakes/fake_server.py")
    parser.add_argument("--script", type=Path, help="JSON script file (default: empty)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, help="request log, one JSON line per request")
    args = parser.parse_args(argv)
    server = FakeModelServer(args.script, args.log, args.port).start()
    print(server.url, flush=True)
    print(f"request log: {server.log_path}", file=sys.stderr, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
