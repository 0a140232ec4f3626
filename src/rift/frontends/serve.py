"""`rift --serve`: the JSON-lines protocol editors embed (shared/spec/serve-protocol-v1.md).

`sys.stdout` points at stderr while the loop runs, so a stray print can never corrupt
the stream. Bad input is one `warning` each and never stops the loop; "blank" and
"JSON" are meant strictly (form feeds or `NaN` make a line malformed)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from rift import __version__
from rift.config.load import Config
from rift.core import COMMANDS as REGISTRY
from rift.core import (
    MODES,
    Command,
    Conversation,
    StartOptions,
    answer,
    decide,
    list_models,
    list_sessions,
    merge,
    offer_trust,
    serve_commands,
    set_approval,
    set_edit_review,
    set_mode,
    start_agent,
    swarm,
)
from rift.errors import ModelError
from rift.events import PROTOCOL_VERSION, Capabilities, Event, Ready, SkillInfo, Warning
from rift.frontends.serve_io import EOF_MARK, EventWriter, read_lines
from rift.text.hygiene import scrub

REGISTRY_BY_WIRE = {c.wire: c for c in REGISTRY if c.wire is not None}
COMMANDS = tuple(serve_commands())
"""The wire commands (`ready.commands`), derived from the core's command registry."""
_JSON_SPACE = " \t\r\n"
"""The only whitespace JSON knows; `str.strip()` would also eat \\x0c, \\x1c, U+2028, ..."""


def _refuse_constant(name: str) -> Any:
    """`json.loads` accepts NaN and Infinity; JSON does not."""
    raise ValueError(f"{name} is not valid JSON")


class ServeLoop:
    """Reads commands and translates each into one call on the conversation owner; only
    the wire (field validation, warnings for malformed commands) belongs here."""

    def __init__(self, conversation: Conversation, emit: Callable[[Event], None]):
        self.conversation = conversation
        self.emit = emit
        self.side_tasks: set[asyncio.Task[Any]] = set()
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "hello": self.hello,
            "prompt": self.prompt,
            "answer": self.answer,
            "edit_decision": self.edit_decision,
            "cancel": self.cancel,
            "list_sessions": self.list_sessions,
            "list_models": self.list_models,
            "set_model": self.set_model,
            "set_approval": self.set_approval,
            "set_mode": self.set_mode,
            "rewind": self.rewind,
            "swarm": self.swarm,
            "merge": self.merge,
        }
        for command in REGISTRY:  # the rest run from the registry: no fields, or `args`
            if command.wire is not None and command.wire not in self.handlers:
                self.handlers[command.wire] = self._registered(command)

    def warn(self, text: str) -> None:
        self.emit(Warning(text=text, code="bad_command"))

    def handle_line(self, raw: bytes | Exception) -> None:
        if isinstance(raw, Exception):
            self.warn(str(raw))
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.warn(f"bad command: not valid UTF-8 ({exc.reason} at byte {exc.start})")
            return
        if not text.strip(_JSON_SPACE):
            return
        try:
            command = json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError) as exc:
            self.warn(f"bad command json: {exc}")
            return
        if not isinstance(command, dict):
            self.warn('bad command json: expected an object like {"cmd":"prompt",...}')
            return
        command = {k: scrub(v) if isinstance(v, str) else v for k, v in command.items()}
        name = command.get("cmd")
        handler = self.handlers.get(name) if isinstance(name, str) else None
        if handler is None:
            self.warn(f"unknown cmd {json.dumps(name)[:80]} (expected {'/'.join(COMMANDS)})")
            return
        handler(command)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.side_tasks.add(task)
        task.add_done_callback(self.side_tasks.discard)

    def hello(self, cmd: dict[str, Any]) -> None:
        edit_review = cmd.get("edit_review", False)
        approve = cmd.get("approve")
        if not isinstance(edit_review, bool):
            self.warn("hello: 'edit_review' must be a boolean")
            edit_review = False
        if approve is not None and not isinstance(approve, bool):
            self.warn("hello: 'approve' must be a boolean")
            approve = None
        conversation = self.conversation
        auto_continue = cmd.get("auto_continue", conversation.state.config.auto_continue)
        if not isinstance(auto_continue, bool):
            self.warn("hello: 'auto_continue' must be a boolean")
            auto_continue = False
        set_edit_review(conversation, edit_review)
        conversation.auto_continue = auto_continue
        if approve is not None:
            set_approval(conversation, approve, announce=False)  # capabilities says it
        self.emit(
            Capabilities(
                protocol_version=PROTOCOL_VERSION,
                edit_review=edit_review,
                approve=conversation.state.approve,
            )
        )
        # Project trust asks wait for hello (its `approve` may switch them off) or the
        # first prompt, so they never come before the client is listening (spec `hello`).
        offer_trust(conversation)

    def prompt(self, cmd: dict[str, Any]) -> None:
        text = cmd.get("text")
        if not isinstance(text, str):
            self.warn("prompt needs a string 'text' field")
            return
        self.conversation.submit(text)

    def answer(self, cmd: dict[str, Any]) -> None:
        ask_id, text = cmd.get("id"), cmd.get("text", "")
        if ask_id is None:
            return  # a missing id is ignored like an unknown one (the spec: no event)
        if not isinstance(ask_id, int) or isinstance(ask_id, bool) or not isinstance(text, str):
            self.warn("answer needs a numeric 'id' and a string 'text'")
            return
        answer(self.conversation, ask_id, text)

    def edit_decision(self, cmd: dict[str, Any]) -> None:
        review_id, apply, content = cmd.get("id"), cmd.get("apply", False), cmd.get("content")
        if (
            not isinstance(review_id, int)
            or isinstance(review_id, bool)
            or not isinstance(apply, bool)
            or (content is not None and not isinstance(content, str))
        ):
            self.warn(
                "edit_decision needs a numeric 'id', a boolean 'apply' and an optional"
                " string 'content'"
            )
            return
        decide(self.conversation, review_id, apply, content)

    def cancel(self, _cmd: dict[str, Any]) -> None:
        self.conversation.cancel()

    def list_sessions(self, _cmd: dict[str, Any]) -> None:
        self.emit(list_sessions(self.conversation))

    def list_models(self, _cmd: dict[str, Any]) -> None:
        async def discover() -> None:
            self.emit(await list_models(self.conversation))

        self.spawn(discover())

    def set_model(self, cmd: dict[str, Any]) -> None:
        model = cmd.get("model")
        if not isinstance(model, str) or not model.strip():
            self.warn("set_model needs a 'model' field")
            return
        REGISTRY_BY_WIRE["set_model"].run(self.conversation, model)

    def set_approval(self, cmd: dict[str, Any]) -> None:
        approve = cmd.get("approve")
        if not isinstance(approve, bool):
            self.warn("set_approval needs a boolean 'approve' field")
            return
        set_approval(self.conversation, approve)  # acked by the core

    def set_mode(self, cmd: dict[str, Any]) -> None:
        mode = cmd.get("mode")
        if not isinstance(mode, str) or not set_mode(self.conversation, mode):
            self.warn(f"set_mode needs a 'mode' field: one of {', '.join(MODES)}")

    def rewind(self, cmd: dict[str, Any]) -> None:
        n = cmd.get("n", 1)
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            self.warn("rewind needs a positive integer 'n' (default 1)")
            return
        REGISTRY_BY_WIRE["rewind"].run(self.conversation, str(n))

    def swarm(self, cmd: dict[str, Any]) -> None:
        task, attempts, explore = cmd.get("task"), cmd.get("attempts", 1), cmd.get("explore")
        models, judge, test_cmd = _names(cmd.get("models")), _names(cmd.get("judge")), None
        if isinstance(cmd.get("test_cmd"), str) and cmd["test_cmd"].strip():
            test_cmd = cmd["test_cmd"]
        if (
            not isinstance(task, str)
            or not task.strip()
            or not isinstance(attempts, int)
            or isinstance(attempts, bool)
            or attempts < 1
            or not isinstance(explore, bool | None)
            or models is None
            or judge is None
        ):
            self.warn(
                "swarm needs a 'task' string; optional: 'models' and 'judge' (a string or a"
                " list of strings), 'attempts' (a positive integer), 'explore' (a boolean),"
                " 'test_cmd' (a string)"
            )
            return
        swarm(
            self.conversation,
            task,
            models=models,
            attempts=attempts,
            explore=bool(explore),
            judge=judge,
            test_cmd=test_cmd,
        )

    def merge(self, cmd: dict[str, Any]) -> None:
        name, cleanup = cmd.get("name", ""), cmd.get("cleanup", False)
        if not isinstance(name, str) or not isinstance(cleanup, bool) or not (name or cleanup):
            self.warn("merge needs a candidate 'name' string and/or 'cleanup': true")
            return
        merge(self.conversation, name, cleanup)

    def _registered(self, command: Command) -> Callable[[dict[str, Any]], None]:
        """A registry command (/undo, /retry…): its optional string `args` to its `run`."""

        def run(cmd: dict[str, Any]) -> None:
            args = cmd.get("args", "")
            if not isinstance(args, str):
                self.warn(f"{cmd.get('cmd')}: 'args' must be a string")
                return
            command.run(self.conversation, args)

        return run

    async def shutdown(self) -> None:
        """stdin closed: the owner cancels, closes reviews and asks, saves, releases."""
        for task in list(self.side_tasks):
            task.cancel()
        await asyncio.gather(*self.side_tasks, return_exceptions=True)
        await self.conversation.close()


def _names(value: object) -> str | None:
    """A comma-separated string of names from a string or a list of strings (None: bad)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    return None


async def _serve(config: Config, options: StartOptions, emit: EventWriter) -> int:
    try:
        started = await start_agent(config, emit, options)
    except ModelError as exc:
        print(f"rift: {exc}", file=sys.stderr)
        emit(Warning(text=f"error: {exc}", code="error"))
        return 2
    conversation = started.conversation
    state = conversation.state
    emit(
        Ready(
            model=state.model,
            session=str(conversation.session_path),
            cwd=str(config.cwd),
            version=__version__,
            protocol_version=PROTOCOL_VERSION,
            num_ctx=state.num_ctx,
            approve=state.approve,
            skills=[SkillInfo(s.name, s.description) for s in state.skills.values()],
            commands=list(COMMANDS),
        )
    )
    for event in started.opening_events():
        emit(event)
    loop = ServeLoop(conversation, emit)
    queue: asyncio.Queue[object] = asyncio.Queue()
    # The reader gets its own file on a dup of fd 0: after SIGTERM it is still blocked in
    # readline, and finalizing sys.stdin while it holds the lock aborts the interpreter.
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    reader = threading.Thread(
        target=read_lines, daemon=True, args=(stdin, asyncio.get_running_loop(), queue)
    )
    reader.start()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows: no signal handlers
        # SIGTERM (how editors stop us) shuts down like stdin EOF: the running command's
        # process group is killed and the session saved, instead of being orphaned.
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, queue.put_nowait, EOF_MARK)
    while True:
        item = await queue.get()
        if item is EOF_MARK:
            break
        assert isinstance(item, bytes | Exception)
        loop.handle_line(item)
    await loop.shutdown()
    return 0


def run(config: Config, options: StartOptions) -> int:
    """Run the serve loop until stdin closes; returns the exit status."""
    sys.stdout.flush()
    real_stdout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # fd 1 now reaches stderr: nothing but events may use the real stdout
    sys.stdout = sys.stderr
    emit = EventWriter(real_stdout)
    try:
        return asyncio.run(_serve(config, options, emit))
    except KeyboardInterrupt:
        return 130
    finally:
        emit.flush()  # events written in the loop's last step
