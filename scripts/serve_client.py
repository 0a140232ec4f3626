#!/usr/bin/env python3
"""A minimal reference client for `rift --serve` (stdlib only).

It shows what an editor integration needs and nothing more: spawn rift, send
`hello {"edit_review": true}`, stream events as they arrive, answer asks,
review edits hunk by hunk, and ignore every event or field it does not know
(that is what keeps a client working across additive protocol changes).

    python scripts/serve_client.py --model qwen3:32b
    python scripts/serve_client.py --rift "python -m rift" --host http://127.0.0.1:11434
    python scripts/serve_client.py --script steps.json     # non-interactive

A `--script` file is a JSON list of steps, run in order::

    [
      {"prompt": "add a docstring", "answers": ["allow", 1], "reviews": [[true, false], "all"]},
      {"command": {"cmd": "undo"}, "until": "info"}
    ]

`answers` feed the turn's asks in order (a string is sent as the answer text,
an integer picks that 1-based choice); `reviews` feed its edit reviews (a list
of booleans, one per change segment, or "all" / "none"). When a turn asks more
than its step provides, the client refuses (deny / reject), as a person who
walked away would. A `command` step sends one raw command and, with `until`,
waits for that event.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

DIM, RED, GREEN, YELLOW, CYAN, RESET = (
    "\033[2m",
    "\033[31m",
    "\033[32m",
    "\033[33m",
    "\033[36m",
    "\033[0m",
)
Event = dict[str, Any]


# -------------------------------------------------------------- connection


class Connection:
    """The rift process: JSON lines out, parsed events in (on a reader thread)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.events: queue.Queue[Event | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line.decode("utf-8", errors="replace"))
            except ValueError:
                continue  # not ours to interpret; rift only writes JSON here
            if isinstance(event, dict) and isinstance(event.get("event"), str):
                self.events.put(event)
        self.events.put(None)

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def close(self) -> int:
        """Close stdin (rift saves and exits) and wait for the exit status."""
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        return self.proc.wait()


# ----------------------------------------------------------------- review


def reassemble(segments: list[dict[str, Any]], accepted: list[bool]) -> str:
    """The file text with the accepted change segments applied (spec `edit_review`)."""
    lines: list[str] = []
    changes = iter(accepted)
    for segment in segments:
        if segment.get("same"):
            lines += segment.get("lines", [])
        else:
            lines += segment.get("new", []) if next(changes, False) else segment.get("old", [])
    return "\n".join(lines)


def change_count(segments: list[dict[str, Any]]) -> int:
    return sum(1 for s in segments if not s.get("same"))


# --------------------------------------------------------------- deciders


class TerminalDecider:
    """Asks the person at the terminal."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def answer(self, event: Event) -> str:
        choices = event.get("choices") or []
        if not choices:
            return _input("answer> ")
        while True:
            reply = _input(f"choose 1-{len(choices)}> ").strip()
            if reply.isdigit() and 1 <= int(reply) <= len(choices):
                return str(choices[int(reply) - 1])
            if reply in choices:
                return reply

    def review(self, event: Event, hunks: int) -> list[bool]:
        return [
            _input(f"apply hunk {i}/{hunks}? [y/n]> ").strip().lower().startswith("y")
            for i in range(1, hunks + 1)
        ]


class ScriptDecider:
    """Canned answers from the current `--script` step; refuses when they run out."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.answers: list[Any] = []
        self.reviews: list[Any] = []

    def load(self, step: dict[str, Any]) -> None:
        self.answers = list(step.get("answers", []))
        self.reviews = list(step.get("reviews", []))

    def answer(self, event: Event) -> str:
        choices = event.get("choices") or []
        if not self.answers:
            reply = "deny"
        else:
            given = self.answers.pop(0)
            reply = str(choices[given - 1]) if isinstance(given, int) else str(given)
        self.out.write(f"answer> {reply}\n")
        return reply

    def review(self, event: Event, hunks: int) -> list[bool]:
        given = self.reviews.pop(0) if self.reviews else "none"
        if given in ("all", "none"):
            decisions = [given == "all"] * hunks
        else:
            decisions = [bool(d) for d in given][:hunks]
            decisions += [False] * (hunks - len(decisions))
        self.out.write("review> " + " ".join("y" if d else "n" for d in decisions) + "\n")
        return decisions


def _input(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        return ""


# ---------------------------------------------------------------- renderer


class Client:
    """Renders events and answers interaction events through a decider."""

    def __init__(self, conn: Connection, decider: Any, out: TextIO, color: bool) -> None:
        self.conn = conn
        self.decider = decider
        self.out = out
        self.color = color
        self.inline = False  # the cursor is mid-line (streamed text)
        self.inline_style = ""
        self.handlers: dict[str, Callable[[Event], None]] = {
            "ready": self.on_ready,
            "history": self.on_history,
            "content": self.on_content,
            "thinking": self.on_thinking,
            "tool_start": self.on_tool_start,
            "tool_result": self.on_tool_result,
            "edit_diff": self.on_edit_diff,
            "plan": self.on_plan,
            "ask": self.on_ask,
            "edit_review": self.on_edit_review,
            "edit_review_closed": lambda e: self.line(f"(review {e.get('id')} closed)", DIM),
            "done": self.on_done,
            "warning": lambda e: self.line(f"warning: {e.get('text', '')}", YELLOW),
            "info": lambda e: self.line(str(e.get("text", "")), DIM),
            "model_changed": lambda e: self.line(f"model: {e.get('model')} {e.get('note', '')}"),
            "approval_changed": lambda e: self.line(f"approval: {e.get('approve')}"),
            "subagent_started": lambda e: self.line(f"[{e.get('tag')}] {e.get('label')}", CYAN),
            "subagent": lambda e: self.line(f"[{e.get('tag')}] {e.get('text')}", DIM),
            "task_started": lambda e: self.line(f"[task #{e.get('id')}] {e.get('label')}", CYAN),
            "task_finished": self.on_task_finished,
        }

    # ---------------------------------------------------------------- output

    def paint(self, text: str, style: str) -> str:
        return f"{style}{text}{RESET}" if self.color and style else text

    def line(self, text: str, style: str = "") -> None:
        if self.inline:
            self.out.write("\n")
            self.inline = False
        self.out.write(self.paint(text, style) + "\n")
        self.out.flush()

    def stream(self, text: str, style: str = "") -> None:
        if self.inline and style != self.inline_style:
            self.out.write("\n")  # reasoning and reply on separate lines
        self.out.write(self.paint(text, style))
        self.out.flush()
        self.inline, self.inline_style = not text.endswith("\n"), style

    # ----------------------------------------------------------------- events

    def handle(self, event: Event) -> None:
        handler = self.handlers.get(event["event"])
        if handler is not None:  # unknown events are ignored on purpose
            handler(event)

    def on_ready(self, e: Event) -> None:
        self.line(f"rift {e.get('version', '?')} · {e.get('model')} · {e.get('session')}", DIM)

    def on_history(self, e: Event) -> None:
        for message in e.get("messages", []):
            who = "you" if message.get("role") == "user" else "rift"
            self.line(f"{who}: {message.get('text', '')}", DIM)

    def on_content(self, e: Event) -> None:
        self.stream(str(e.get("text", "")))

    def on_thinking(self, e: Event) -> None:
        self.stream(str(e.get("text", "")), DIM)

    def on_tool_start(self, e: Event) -> None:
        args = json.dumps(e.get("args"), ensure_ascii=False)
        self.line(f"→ {e.get('name')} {args[:80]}", CYAN)

    def on_tool_result(self, e: Event) -> None:
        if e.get("ok"):
            self.line(f"✓ {e.get('name')}", GREEN)
        else:
            first = str(e.get("preview", "")).splitlines()[:1]
            self.line(f"✗ {e.get('name')}: {first[0] if first else ''}", RED)

    def on_edit_diff(self, e: Event) -> None:
        self.line(f"  {e.get('path')} (+{e.get('added', 0)} -{e.get('removed', 0)})")
        for row in e.get("diff", []):
            style = GREEN if row.startswith("+") else RED if row.startswith("-") else DIM
            self.line(f"    {row}", style)

    def on_plan(self, e: Event) -> None:
        self.line("plan:")
        for item in e.get("items", []):
            self.line(f"  [{'x' if item.get('done') else ' '}] {item.get('text', '')}")

    def on_task_finished(self, e: Event) -> None:
        state = "done" if e.get("ok") else "failed"
        self.line(f"[task #{e.get('id')}] {state}: {e.get('label')}", CYAN)

    def on_done(self, e: Event) -> None:
        stats = e.get("stats", {})
        self.line(
            f"[done · {stats.get('iterations', 0)} iterations ·"
            f" {stats.get('tokens_per_sec', 0)} tok/s]",
            DIM,
        )

    def on_ask(self, e: Event) -> None:
        self.line(f"? {e.get('question', '')}", YELLOW)
        for row in e.get("detail", []):
            self.line(f"    {row}", DIM)
        for n, choice in enumerate(e.get("choices", []), 1):
            self.line(f"  {n}. {choice}")
        self.conn.send({"cmd": "answer", "id": e.get("id"), "text": self.decider.answer(e)})

    def on_edit_review(self, e: Event) -> None:
        segments = e.get("segments") or [
            {
                "same": False,
                "old": str(e.get("old", "")).split("\n"),
                "new": str(e.get("new", "")).split("\n"),
            }
        ]  # a build without segments: one whole-file hunk
        hunks = change_count(segments)
        self.line(f"review {e.get('tool')} {e.get('path')}: {hunks} hunk(s)", YELLOW)
        n = 0
        for segment in segments:
            if segment.get("same"):
                continue
            n += 1
            self.line(f"  hunk {n}:", DIM)
            for row in segment.get("old", []):
                self.line(f"    -{row}", RED)
            for row in segment.get("new", []):
                self.line(f"    +{row}", GREEN)
        accepted = self.decider.review(e, hunks)
        decision: dict[str, Any] = {"cmd": "edit_decision", "id": e.get("id")}
        if not any(accepted):
            decision["apply"] = False  # nothing kept counts as a rejection
        else:
            decision.update(apply=True, content=reassemble(segments, accepted))
        self.conn.send(decision)

    # ------------------------------------------------------------------ flow

    def pump_until(self, name: str) -> bool:
        """Handle events until one named `name`; False when rift exited first."""
        while True:
            event = self.conn.events.get()
            if event is None:
                self.line("rift exited", RED)
                return False
            self.handle(event)
            if event["event"] == name:
                return True

    def pump_pending(self) -> None:
        """Handle whatever has already arrived (events between turns)."""
        while True:
            try:
                event = self.conn.events.get_nowait()
            except queue.Empty:
                return
            if event is None:
                self.conn.events.put(None)
                return
            self.handle(event)

    def turn(self, text: str) -> bool:
        self.conn.send({"cmd": "prompt", "text": text})
        try:
            return self.pump_until("done")
        except KeyboardInterrupt:
            self.conn.send({"cmd": "cancel"})
            return self.pump_until("done")


# ------------------------------------------------------------------- modes


def run_interactive(client: Client) -> None:
    while True:
        client.pump_pending()
        try:
            text = input("\n> ")
        except (EOFError, KeyboardInterrupt):
            return
        if text.strip() in ("/quit", "/exit"):
            return
        if text.strip() and not client.turn(text):
            return


def run_script(client: Client, steps: list[dict[str, Any]]) -> None:
    assert isinstance(client.decider, ScriptDecider)
    for step in steps:
        if "prompt" in step:
            client.decider.load(step)
            client.line(f"> {step['prompt']}")
            if not client.turn(str(step["prompt"])):
                return
        elif "command" in step:
            client.conn.send(step["command"])
            if step.get("until") and not client.pump_until(str(step["until"])):
                return
    client.pump_pending()


def build_argv(args: argparse.Namespace) -> list[str]:
    argv = [*shlex.split(args.rift), "--serve"]
    for flag, value in (("--model", args.model), ("--host", args.host), ("--resume", args.resume)):
        if value:
            argv += [flag, value]
    if args.continue_last:
        argv.append("--continue")
    return argv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A minimal reference client for rift --serve.")
    parser.add_argument("--rift", default="rift", help="the rift command line (default: rift)")
    parser.add_argument("--model", "-m", help="passed through to rift")
    parser.add_argument("--host", help="passed through to rift")
    parser.add_argument("--continue", dest="continue_last", action="store_true")
    parser.add_argument("--resume", metavar="FILE")
    parser.add_argument("--script", metavar="FILE", help="run a JSON list of steps, then exit")
    args = parser.parse_args(argv)
    out = sys.stdout
    color = out.isatty() and not args.script
    conn = Connection(build_argv(args))
    decider = ScriptDecider(out) if args.script else TerminalDecider(out)
    client = Client(conn, decider, out, color)
    conn.send({"cmd": "hello", "edit_review": True})
    if not client.pump_until("context"):  # ready, then the context gauge
        return conn.close() or 1
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            run_script(client, json.load(handle))
    else:
        run_interactive(client)
    return conn.close()


if __name__ == "__main__":
    raise SystemExit(main())
