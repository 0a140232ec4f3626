"""Fault injection: the fake model server misbehaves in every way it knows, mid-session.

One `rift --serve` per wire format (Ollama, and OpenAI via `--host URL/v1`) with
`RIFT_READ_TIMEOUT=1` runs every fault as one turn: HTTP 500/429/404, a stall
before the first byte (longer than the read-idle timeout; retried, then given
up), a stall mid-stream, a connection dropped mid-answer and in the middle of a
tool call, a half-written JSON line, a stream cut off without its end, an
endless reply and an endless chain of thought (bytes keep coming, so only
rift's reply bound ends them), and finally the server going away (connection
refused) and coming back on the same port.

After each fault: the turn ended with exactly one `done` within the time bound,
the session file parses with every tool call answered, and the next prompt is
answered normally.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .common import MODEL, FakeModelServer, Report, Serve, check_session, fake_server, sandbox

DONE_BOUND_S = 20.0
"""No faulty turn may take longer than this to reach `done`."""
ENDLESS_CHUNK = "loop " * 1000
"""5,000 characters a chunk, every 10 ms: rift's reply bound ends it in about a second."""


@dataclass(frozen=True)
class Fault:
    name: str
    turn: dict[str, Any]
    repeat: int = 1
    openai_turn: dict[str, Any] | None = None
    """The same fault in the OpenAI wire format, where the two differ."""


FAULTS: tuple[Fault, ...] = (
    Fault("http-500", {"status": 500, "error": "internal failure"}),
    Fault("http-429", {"status": 429, "error": "rate limited"}),
    Fault("http-404", {"status": 404, "error": "no such model"}),
    Fault("stall-before-first-byte", {"delay_first_byte": 4, "content": "late"}, repeat=3),
    Fault("stall-mid-stream", {"content": ["a", "b", "c"], "chunk_delay": 3}),
    Fault("drop-mid-answer", {"content": ["partial ", "answer ", "more"], "drop_after": 1}),
    Fault(
        "drop-mid-tool-call",
        {
            "tool_calls": [
                {"id": "t1", "name": "write", "arguments": {"path": "x.txt", "content": "a" * 64}}
            ],
            "drop_after": 1,
        },
    ),
    Fault(
        "half-written-json-line",
        {"content": "ok", "garbage": '{"message": {"role": "assistant", "content": "tr'},
        openai_turn={"content": "ok", "garbage": 'data: {"choices": [{"delta": {"content": "tr'},
    ),
    Fault("cut-off-without-end", {"content": ["cut ", "off"], "truncate": True}),
    Fault("endless-reply", {"never_end": ENDLESS_CHUNK}),
    Fault("endless-reasoning", {"never_end_thinking": ENDLESS_CHUNK}),
)


@dataclass
class _Outcome:
    fault: str
    seconds: float
    dones: int
    session_ok: bool
    recovered: bool
    warning: str


def _script(faults: tuple[Fault, ...], openai: bool) -> dict[str, Any]:
    """Recovery turns first: the recovery prompt's history also holds the fault's token."""
    recover = [{"match": f"after {f.name}", "content": f"recovered {f.name}"} for f in faults]
    broken = [
        {
            "match": f"probe {f.name}",
            "repeat": f.repeat,
            **(f.openai_turn if openai and f.openai_turn else f.turn),
        }
        for f in faults
    ]
    models = [{"name": MODEL, "capabilities": ["tools", "thinking"], "context_length": 32768}]
    return {"models": models, "turns": [*recover, *broken]}


def _turn(serve: Serve, text: str) -> tuple[list[dict[str, Any]], float, bool]:
    started = time.monotonic()
    serve.send({"cmd": "prompt", "text": text})
    events, ok = serve.collect_until(lambda e: e["event"] == "done", DONE_BOUND_S + 10)
    return events, time.monotonic() - started, ok


def _settle(serve: Serve) -> list[dict[str, Any]]:
    """The events after `done` (save, compaction, `context`), so a second `done` shows."""
    events, _ = serve.collect_until(lambda e: e["event"] == "context", 5)
    return events


def _run_fault(serve: Serve, session: str, name: str) -> _Outcome:
    events, seconds, _ = _turn(serve, f"probe {name}")
    events += _settle(serve)
    warning = next((str(e.get("text")) for e in events if e["event"] == "warning"), "")
    session_ok = check_session(session) is None
    after, _, ok_after = _turn(serve, f"after {name}")
    after += _settle(serve)
    text = "".join(str(e.get("text")) for e in after if e["event"] == "content")
    dones = sum(1 for e in events if e["event"] == "done")
    return _Outcome(
        name, seconds, dones, session_ok, ok_after and f"recovered {name}" in text, warning
    )


def _refused(serve: Serve, server: FakeModelServer, session: str, port: int) -> _Outcome:
    """The server goes away mid-session, then a new one answers on the same port."""
    server.stop()
    events, seconds, _ = _turn(serve, "probe connection-refused")
    events += _settle(serve)
    warning = next((str(e.get("text")) for e in events if e["event"] == "warning"), "")
    session_ok = check_session(session) is None
    script = {"turns": [{"content": "recovered connection-refused"}]}
    with fake_server(script, port=port):
        after, _, ok_after = _turn(serve, "after connection-refused")
        after += _settle(serve)
    text = "".join(str(e.get("text")) for e in after if e["event"] == "content")
    dones = sum(1 for e in events if e["event"] == "done")
    recovered = ok_after and "recovered connection-refused" in text
    return _Outcome("connection-refused", seconds, dones, session_ok, recovered, warning)


def _group(openai: bool, faults: tuple[Fault, ...]) -> list[_Outcome]:
    outcomes: list[_Outcome] = []
    with sandbox(RIFT_READ_TIMEOUT="1") as box:
        script = _script(faults, openai)
        server = FakeModelServer(script, log_path=box.root / "requests.jsonl").start()
        port = int(server.url.rsplit(":", 1)[1])
        try:
            host = server.v1_url if openai else server.url
            serve = Serve(box, "--host", host, "-m", MODEL)
            ready = serve.expect("ready", 30)
            session = str(ready["session"])
            for fault in faults:
                outcomes.append(_run_fault(serve, session, fault.name))
            outcomes.append(_refused(serve, server, session, port))
            serve.finish()
        finally:
            server.stop()
    wire = "openai" if openai else "ollama"
    for outcome in outcomes:
        outcome.fault = f"{wire}/{outcome.fault}"
    return outcomes


def run_faults(faults: tuple[Fault, ...] = FAULTS) -> Report:
    report = Report(f"fault injection ({len(faults) + 1} faults x 2 wire formats)")
    with ThreadPoolExecutor(2) as pool:  # the two wire formats are independent
        groups = list(pool.map(lambda openai: _group(openai, faults), (False, True)))
    outcomes = groups[0] + groups[1]
    slow = [o for o in outcomes if o.seconds > DONE_BOUND_S]
    for o in outcomes:
        if o.dones != 1 or o.seconds > DONE_BOUND_S or not o.session_ok or not o.recovered:
            report.problem(
                f"{o.fault}: {o.dones} done in {o.seconds:.1f}s, session ok={o.session_ok},"
                f" next prompt ok={o.recovered}, warning={o.warning!r}"
            )
    report.add("faulty turns", len(outcomes))
    report.add(
        "turns not ended by exactly one done", sum(o.dones != 1 for o in outcomes), want="== 0"
    )
    report.add(f"turns over {DONE_BOUND_S:g} s to done", len(slow), want="== 0")
    report.add("slowest turn to done", round(max(o.seconds for o in outcomes), 2), " s")
    report.add(
        "session file invalid after a fault", sum(not o.session_ok for o in outcomes), want="== 0"
    )
    report.add(
        "next prompt failed after a fault", sum(not o.recovered for o in outcomes), want="== 0"
    )
    report.add("faults ended without a warning", sum(not o.warning for o in outcomes), want="== 0")
    for o in outcomes:
        report.notes.append(f"{o.fault}: done in {o.seconds:.2f}s; {o.warning[:110]}")
    return report
