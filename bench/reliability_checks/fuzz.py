"""Protocol fuzzing: one long-lived `rift --serve` fed random and mutated command lines.

Every generated line is classified from the protocol spec (shared/spec/
serve-protocol-v1.md) *before* it is sent, independently of serve.py:

    warn     must produce at least one `warning` (malformed JSON, wrong types,
             unknown commands, invalid UTF-8, lines over MAX_LINE_BYTES, ...)
    silent   must produce no `warning` (blank lines, unknown answer/edit_decision
             ids, an idle cancel)
    event    must produce its answer (`sessions`, `capabilities`, ...) and no
             warning, unless the line also has a wrong optional field
    turn     a valid prompt: the turn must end with one `done`
    switch   a valid set_model: `model_changed` or a warning
    cancel   a cancel while a turn runs: the turn must end with one `done`
    any      the spec leaves the answer open (a blank prompt, an answer without id)

Each line is followed by a probe, an unknown command `{"cmd":"rift-probe-N"}`
whose warning names N, so the events between two probes belong to one line.
Every few hundred lines a "busy block" starts a turn that stalls (a fake-server
turn that waits before its first byte), sends random lines while it runs
(prompts, undo and set_model must then be refused), and cancels it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from .common import MODEL, FakeModelServer, Report, Serve, fake_server, sandbox
from .fuzz_lines import LineGen, classify
from .procs import wait_until

SLOW_TOKEN = "slowturn{}x"
BUSY_EVERY = 250
BUSY_LINES = 12
TURN_TIMEOUT = 60.0
PROBE_TIMEOUT = 60.0


# -------------------------------------------------------------------- driver


@dataclass
class _Tally:
    lines: int = 0
    warn_expected: int = 0
    missing_warnings: int = 0
    unexpected_warnings: int = 0
    missing_answers: int = 0
    turns: int = 0
    turns_without_done: int = 0
    busy_blocks: int = 0
    seconds: float = 0.0
    kinds: dict[str, int] = field(default_factory=dict)


class _Fuzzer:
    def __init__(self, serve: Serve, server: FakeModelServer, report: Report) -> None:
        self.serve = serve
        self.server = server
        self.report = report
        self.tally = _Tally()
        self.probe = 0
        self.busy_turns = 0
        self.alive = True

    def _window(self, line: bytes, wait_for: str | None) -> list[dict[str, Any]]:
        """Send `line` and a probe; the events up to the probe's warning (plus, for
        work that answers later, up to the `wait_for` event)."""
        self.probe += 1
        tag = f"rift-probe-{self.probe}"
        if wait_for is None:
            self.alive = self.serve.send(line + b"\n" + json.dumps({"cmd": tag}).encode())
        else:
            self.alive = self.serve.send(line)
        if not self.alive:
            return []
        events: list[dict[str, Any]] = []
        if wait_for is not None:
            names = set(wait_for.split("|"))
            got, ok = self.serve.collect_until(lambda e: e["event"] in names, TURN_TIMEOUT)
            events += got
            if not ok:
                self.tally.turns_without_done += 1
                self.report.problem(f"no {wait_for} after {line[:120]!r}")
            self.alive = self.serve.send(json.dumps({"cmd": tag}).encode())

        def is_probe(event: dict[str, Any]) -> bool:
            return event["event"] == "warning" and f'"{tag}"' in str(event.get("text"))

        got, ok = self.serve.collect_until(is_probe, PROBE_TIMEOUT)
        if not ok:
            self.alive = False
            self.report.problem(f"no answer to the probe after {line[:120]!r}")
            return events + got
        return events + got[:-1]

    def run_case(self, family: str, line: bytes, busy: bool) -> str:
        """Send one line, check what followed it; returns the case kind."""
        case = classify(line, busy)
        self.tally.lines += 1
        self.tally.kinds[case.kind] = self.tally.kinds.get(case.kind, 0) + 1
        wait_for = {"turn": "done", "switch": "model_changed|warning", "cancel": "done"}.get(
            case.kind
        )
        events = self._window(line, wait_for)
        if not self.alive:
            return case.kind
        warnings = [e for e in events if e["event"] == "warning"]
        names = [e["event"] for e in events]
        shown = f"[{family}] {line[:100]!r} -> {names[:6]}"
        if case.kind == "turn":
            self.tally.turns += 1
        if case.kind == "warn" or case.also_warn:
            self.tally.warn_expected += 1
            if not warnings:
                self.tally.missing_warnings += 1
                self.report.problem("no warning: " + shown)
        elif case.kind in ("silent", "event") and warnings:
            self.tally.unexpected_warnings += 1
            self.report.problem(f"unexpected warning {warnings[0].get('text')!r}: " + shown)
        if case.kind == "event" and case.event not in names:
            self.tally.missing_answers += 1
            self.report.problem(f"no {case.event}: " + shown)
        return case.kind

    def busy_block(self, gen: LineGen) -> None:
        """Start a stalled turn, throw lines at it, cancel it."""
        self.tally.busy_blocks += 1
        token = SLOW_TOKEN.format(self.busy_turns)
        self.busy_turns += 1
        if not self.serve.send({"cmd": "prompt", "text": f"stall {token}"}):
            self.alive = False
            return

        # Wait until the fake server holds the request: cancelled before it was sent, the
        # stalled turn would stay in the script and stall the next prompt instead.
        def arrived() -> bool:
            return any(token in json.dumps(r) for r in self.server.chat_requests()[-2:])

        if not wait_until(arrived, TURN_TIMEOUT):
            self.report.problem("the stalled turn never reached the model server")
            return
        for _ in range(BUSY_LINES):
            family, line = gen.random_line()
            if self.run_case(family, line, busy=True) == "cancel" or not self.alive:
                return
        self.run_case("busy-cancel", b'{"cmd":"cancel"}', busy=True)


def run_fuzz(lines: int, seed: int = 1234, busy_every: int = BUSY_EVERY) -> Report:
    """Drive one `rift --serve` with `lines` generated lines (tour first, then random)."""
    report = Report(f"protocol fuzzing ({lines} lines, seed {seed})")
    blocks = lines // busy_every + 2
    script = {
        "turns": [
            {"match": SLOW_TOKEN.format(k), "delay_first_byte": 120, "content": "late"}
            for k in range(blocks)
        ]
    }
    started = time.monotonic()
    with sandbox() as box, fake_server(script) as server:
        serve = Serve(box, "--host", server.url, "-m", MODEL)
        serve.expect("context", timeout=30)
        fuzzer = _Fuzzer(serve, server, report)
        gen = LineGen(seed)
        plan = list(gen.tour())
        sent = 0
        while sent < lines and fuzzer.alive:
            family, line = plan.pop(0) if plan else gen.random_line()
            fuzzer.run_case(family, line, busy=False)
            sent += 1
            if sent % busy_every == 0 and fuzzer.alive:
                fuzzer.busy_block(gen)
        code = serve.finish()
        tally = fuzzer.tally
        tally.seconds = time.monotonic() - started
        crashed = not fuzzer.alive or code != 0
        stderr = serve.stderr()
        if crashed:
            report.problem(f"rift exited early or uncleanly (status {code}): {stderr[-800:]}")
        tracebacks = stderr.count("Traceback (most recent call last)")
        if tracebacks:
            report.problem("traceback on stderr: " + stderr[-1500:])
        for raw in serve.bad_stdout[:5]:
            report.problem(f"non-JSON stdout line: {raw!r}")
    report.add("lines sent (busy blocks included)", tally.lines)
    report.add("busy blocks (lines sent while a turn ran)", tally.busy_blocks)
    report.add("lines that required a warning", tally.warn_expected)
    for kind in ("warn", "event", "turn", "switch", "cancel", "silent", "any"):
        report.add(f"  classified {kind}", tally.kinds.get(kind, 0))
    report.add("crashes (rift exited or stopped answering)", int(crashed), want="== 0")
    report.add("lines answered without the required warning", tally.missing_warnings, want="== 0")
    report.add("warnings for lines the spec keeps silent", tally.unexpected_warnings, want="== 0")
    report.add("commands left without their answer event", tally.missing_answers, want="== 0")
    report.add("turns without a done", tally.turns_without_done, want="== 0")
    report.add("non-JSON lines on stdout", len(serve.bad_stdout), want="== 0")
    report.add("tracebacks on stderr", tracebacks, want="== 0")
    report.add("time", round(tally.seconds, 1), " s")
    return report
