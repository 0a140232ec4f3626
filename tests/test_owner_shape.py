"""The owner a newcomer can hold in their head (issue 43).

`Conversation` keeps the lifecycle and nothing else: few public members, no mixins.
Every slash command is an object carrying the function that runs it (no method names
looked up as strings). No face holds a lock or a queue around `submit`: the core
queues (`submit(when_busy="queue")`) and says how each prompt's turn ended.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path

import pytest
from fakes.fake_server import FakeModelServer

from rift.config.load import Overrides, load_config
from rift.core import BY_NAME, COMMANDS, Command, Conversation
from rift.core.conversation.startup import StartOptions, start_agent
from rift.events import Done, Event, Warning

SRC = Path(__file__).resolve().parent.parent / "src" / "rift"
FRONTENDS = SRC / "frontends"
MAX_PUBLIC = 15


def public_members(cls: type) -> set[str]:
    """Public names on the class, and the public attributes its `__init__` assigns."""
    names = {name for name in dir(cls) if not name.startswith("_")}
    tree = ast.parse(inspect.getsource(cls.__init__).strip())  # type: ignore[misc]
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and not target.attr.startswith("_")
            ):
                names.add(target.attr)
    return names


def test_the_owner_has_few_public_members_and_no_mixins() -> None:
    members = public_members(Conversation)
    assert len(members) <= MAX_PUBLIC, sorted(members)
    assert Conversation.__bases__ == (object,)
    assert {"submit", "cancel", "close", "state", "busy", "session_path"} <= members


def test_the_member_count_would_catch_a_new_public_method() -> None:
    class Grown(Conversation):
        def undo(self) -> bool:
            return False

    assert public_members(Grown) - public_members(Conversation) == {"undo"}


def test_every_command_is_an_object_with_its_run_function() -> None:
    assert COMMANDS and all(isinstance(command, Command) for command in COMMANDS)
    for command in COMMANDS:
        assert inspect.isfunction(command.run), command.name
        parameters = list(inspect.signature(command.run).parameters)
        assert len(parameters) >= 2 and parameters[0] == "owner", command.name
    assert {command.name: command for command in COMMANDS} == BY_NAME
    fields = Command.__struct_fields__
    assert "method" not in fields  # no name of a method to look up


def test_no_string_dispatch_onto_the_owner() -> None:
    """`getattr(conversation, name)` with a name from a table is how the old dispatch
    worked; nothing under rift does it any more."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and len(node.args) >= 2
                and not isinstance(node.args[1], ast.Constant)
                and "conv" in ast.unparse(node.args[0])
            ):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not offenders


# ------------------------------------------------------------ faces: no locks, no queues

SYNC_PRIMITIVES = {"Lock", "Semaphore", "BoundedSemaphore", "Condition"}
QUEUES = {"Queue", "LifoQueue", "PriorityQueue", "deque"}


def _creates(node: ast.AST, names: set[str]) -> bool:
    """`asyncio.Lock()`, `Lock()`, a `field(default_factory=asyncio.Lock)`..."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr in names:
            return True
        if isinstance(inner, ast.Name) and inner.id in names:
            return True
    return False


def _calls_submit(node: ast.AST) -> bool:
    return any(
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Attribute)
        and inner.func.attr in ("submit", "start_turn")
        for inner in ast.walk(node)
    )


def _holds_prompts(scope: ast.AST) -> bool:
    """An attribute named for a queue (`self.queued = []`, `_queue: asyncio.Queue`)."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        named = [ast.unparse(t) for t in targets if "queue" in ast.unparse(t).lower()]
        made = value is not None and (
            _creates(value, QUEUES) or isinstance(value, ast.List) or "list" in ast.unparse(value)
        )
        if named and made:
            return True
    return False


def lock_or_queue_offenders(root: Path) -> list[str]:
    """A face that makes a lock anywhere, or holds a queue in a class (or module) that
    submits prompts (an update stream to the editor is no queue of prompts)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _creates(tree, SYNC_PRIMITIVES):
            found.append(f"{path.relative_to(root)}: a lock")
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] or [tree]
        for scope in scopes:
            if _calls_submit(scope) and _holds_prompts(scope):
                found.append(f"{path.relative_to(root)}: a queue beside submit")
    return found


def test_no_face_holds_a_lock_or_a_queue_around_submit() -> None:
    assert lock_or_queue_offenders(FRONTENDS) == []


def test_the_lock_check_would_catch_the_old_acp_session(tmp_path: Path) -> None:
    face = tmp_path / "frontends"
    face.mkdir()
    (face / "acp.py").write_text(
        "import asyncio\n"
        "class Session:\n"
        "    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)\n"
        "    async def prompt(self, text):\n"
        "        async with self._lock:\n"
        "            self.conv.submit(text)\n"
    )
    (face / "tui.py").write_text(
        "class App:\n"
        "    def __init__(self):\n"
        "        self.queued: list[str] = []\n"
        "    def send(self, text):\n"
        "        self.driver.start_turn(text)\n"
    )
    assert lock_or_queue_offenders(face) == ["acp.py: a lock", "tui.py: a queue beside submit"]


# ------------------------------------------------------------ the core's queue

MODELS = [{"name": "fake-model", "capabilities": ["tools"], "context_length": 32768}]


def _conversation(tmp_path: Path, turns: list[dict[str, object]], body: object) -> list[Event]:
    with FakeModelServer({"models": MODELS, "turns": turns}) as server:
        env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
        env["XDG_DATA_HOME"] = str(tmp_path / "data")
        config = load_config(env, tmp_path, Overrides(host=server.url, model="fake-model"))
        events: list[Event] = []

        async def go() -> None:
            started = await start_agent(config, events.append, StartOptions())
            try:
                await body(started.conversation)  # type: ignore[operator]
            finally:
                await started.conversation.close()

        asyncio.run(go())
        return events


@pytest.mark.timeout(30)
def test_submit_queues_or_refuses_while_busy_and_says_how_each_turn_ended(
    tmp_path: Path,
) -> None:
    turns: list[dict[str, object]] = [
        {"match": "first", "content": "one", "delay_first_byte": 0.5},
        {"match": "second", "content": "two"},
    ]
    seen: dict[str, object] = {}

    async def body(conversation: Conversation) -> None:
        first = conversation.submit("first")
        refused = conversation.submit("refused")  # when_busy="refuse" is the default
        queued = conversation.submit("second", when_busy="queue")
        taken = conversation.submit("taken back", when_busy="queue")
        assert conversation.state.queued == ("second", "taken back")
        assert conversation.take_back() == "taken back"
        seen["statuses"] = [first.status, refused.status, queued.status, taken.status]
        seen["refusal"] = getattr(refused.refusal, "code", None)  # a Refusal is falsy
        seen["taken"] = (await taken.began, (await taken.result).ending)
        assert not queued.began.done()  # it waits for the first turn
        seen["first"] = (await first.result).ending
        seen["began"] = await queued.began
        ended = await queued.result
        seen["second"] = (ended.ending, ended.done is not None)
        assert conversation.state.queued == ()

    events = _conversation(tmp_path, turns, body)
    assert seen["statuses"] == ["started", "refused", "queued", "queued"]
    assert seen["refusal"] == "busy"
    assert seen["taken"] == (False, "refused")
    assert seen["first"] == "answered"
    assert seen["began"] is True
    assert seen["second"] == ("answered", True)
    assert sum(isinstance(e, Done) for e in events) == 2  # the taken-back one never ran
    assert [e.code for e in events if isinstance(e, Warning)] == ["busy"]


@pytest.mark.timeout(30)
def test_a_cancelled_turn_ends_cancelled_and_the_queued_one_runs(tmp_path: Path) -> None:
    turns: list[dict[str, object]] = [
        {"match": "long", "content": "working", "never_end": " .", "chunk_delay": 0.05},
        {"match": "next", "content": "done"},
    ]
    endings: list[str] = []

    async def body(conversation: Conversation) -> None:
        long = conversation.submit("long")
        await asyncio.sleep(0.5)
        queued = conversation.submit("next", when_busy="queue")
        assert queued.status == "queued"
        assert conversation.cancel()
        endings.append((await long.result).ending)
        endings.append((await queued.result).ending)

    _conversation(tmp_path, turns, body)
    assert endings == ["cancelled", "answered"]
