"""`rift --acp` end to end: handshake, a turn with tools and permissions, modes, models,
saved sessions. Each test spawns rift as a subprocess and talks to it with the ACP SDK's
own client side (acp_harness.py) against the scripted fake model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import RequestError, text_block
from acp_harness import MODEL, Recorder, connect, run


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_initialize_advertises_rift(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": []})

    async def scenario() -> None:
        async with connect(Recorder(), project, server) as rift:
            init = rift.init
            assert init.protocol_version == 1
            caps = init.agent_capabilities
            assert caps.load_session is True
            assert caps.prompt_capabilities.embedded_context is True
            assert caps.session_capabilities.list is not None
            assert init.agent_info.name == "rift"
            from rift import __version__

            assert init.agent_info.version == __version__
            session = await rift.conn.new_session(cwd=str(project), mcp_servers=[])
            assert session.session_id
            assert session.modes.current_mode_id == "ask"
            assert {m.id for m in session.modes.available_modes} >= {"ask", "auto"}
            options = {o.id: o for o in session.config_options}
            assert options["model"].current_value == MODEL
            assert options["mode"].current_value == "ask"

    run(scenario())


def test_prompt_reads_and_writes_with_permission_denied_then_allowed(
    project: Path, fake_server: Any
) -> None:
    (project / "notes.txt").write_text("alpha\nbeta\n")
    server = fake_server(
        {
            "turns": [
                {"thinking": "let me look", **_call("read", path="notes.txt")},
                _call("write", path="out.txt", content="hello\n"),
                _call("write", path="out.txt", content="hello, again\n"),
                {"content": ["All ", "done."]},
            ]
        }
    )
    recorder = Recorder(answers=["reject_once", "allow_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            session = await rift.conn.new_session(cwd=str(project), mcp_servers=[])
            response = await rift.conn.prompt(
                session_id=session.session_id, prompt=[text_block("copy the notes")]
            )
            assert response.stop_reason == "end_turn"

    run(scenario())
    assert recorder.text() == "All done."
    assert recorder.text("agent_thought_chunk") == "let me look"
    calls = list(recorder.tool_calls().values())
    assert len(calls) == 3
    read, denied, allowed = calls
    assert read[0].session_update == "tool_call" and read[0].kind == "read"
    assert read[0].locations[0].path == str(project / "notes.txt")
    assert [u.status for u in read] == ["pending", "in_progress", "completed"]
    assert "beta" in read[-1].content[0].content.text
    assert denied[0].kind == "edit" and denied[0].status == "pending"
    assert denied[1].content[0].new_text == "hello\n"  # the proposal, shown before asking
    assert recorder.permissions[0][0].content[0].new_text == "hello\n"
    assert denied[-1].status == "failed"
    assert [u.status for u in allowed] == ["pending", None, "in_progress", "completed"]
    diff = allowed[-1].content[0]
    assert diff.type == "diff" and diff.path == str(project / "out.txt")
    assert diff.old_text is None and diff.new_text == "hello, again\n"
    assert (project / "out.txt").read_text() == "hello, again\n"
    assert len(recorder.permissions) == 2
    tool_call, options = recorder.permissions[0]
    assert tool_call.tool_call_id == denied[0].tool_call_id
    kinds = {o.kind for o in options}
    assert kinds == {"allow_once", "allow_always", "reject_once", "reject_always"}
    denial = server.chat_requests()[2]["messages"][-1]
    assert denial["role"] == "tool" and "DENIED" in denial["content"]


def test_allow_always_records_a_session_rule(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                _call("write", path="a.txt", content="1"),
                {"content": "first"},
                _call("write", path="b.txt", content="2"),
                {"content": "second"},
            ]
        }
    )
    recorder = Recorder(answers=["allow_always"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            for prompt in ("write a", "write b"):
                done = await rift.conn.prompt(session_id=sid, prompt=[text_block(prompt)])
                assert done.stop_reason == "end_turn"

    run(scenario())
    assert len(recorder.permissions) == 1  # the second write needed no question
    assert (project / "a.txt").read_text() == "1"
    assert (project / "b.txt").read_text() == "2"


def test_set_mode_maps_to_the_approval_flag(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                _call("bash", command="echo one > one.txt"),
                {"content": "ran one"},
                _call("bash", command="echo two > two.txt"),
                {"content": "ran two"},
            ]
        }
    )
    recorder = Recorder(answers=["reject_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="auto")
            await rift.conn.prompt(session_id=sid, prompt=[text_block("one")])
            assert recorder.permissions == []
            changed = await rift.conn.set_config_option(
                config_id="mode", session_id=sid, value="ask"
            )
            mode = next(o for o in changed.config_options if o.id == "mode")
            assert mode.current_value == "ask"
            await rift.conn.prompt(session_id=sid, prompt=[text_block("two")])
            assert len(recorder.permissions) == 1
            with pytest.raises(RequestError):
                await rift.conn.set_session_mode(session_id=sid, mode_id="yolo")

    run(scenario())
    assert (project / "one.txt").read_text() == "one\n"
    assert not (project / "two.txt").exists()
    bash = next(iter(recorder.tool_calls().values()))
    assert bash[0].kind == "execute"
    assert "one" in bash[0].title


def test_set_model_preflights_and_switches(project: Path, fake_server: Any) -> None:
    models = [
        {"name": MODEL, "capabilities": ["tools"], "context_length": 32768},
        {"name": "other-model", "capabilities": ["tools"], "context_length": 32768},
        {"name": "no-tools", "capabilities": [], "context_length": 32768},
    ]
    server = fake_server({"models": models, "turns": [{"content": "hi from other"}]})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            session = await rift.conn.new_session(cwd=str(project), mcp_servers=[])
            sid = session.session_id
            listed = next(o for o in session.config_options if o.id == "model")
            assert {o.value for o in listed.options} >= {MODEL, "other-model"}
            with pytest.raises(RequestError) as refused:
                await rift.conn.set_config_option(config_id="model", session_id=sid, value="nope")
            assert "nope" in str(refused.value)
            with pytest.raises(RequestError):
                await rift.conn.set_config_option(
                    config_id="model", session_id=sid, value="no-tools"
                )
            changed = await rift.conn.set_config_option(
                config_id="model", session_id=sid, value="other-model"
            )
            model = next(o for o in changed.config_options if o.id == "model")
            assert model.current_value == "other-model"
            await rift.conn.prompt(session_id=sid, prompt=[text_block("hello")])

    run(scenario())
    assert recorder.text() == "hi from other"
    assert server.chat_requests()[-1]["model"] == "other-model"


def test_load_replays_a_saved_session_and_continues_it(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "I will remember 42."}, {"content": "It was 42."}]})
    first, second = Recorder(), Recorder()

    async def start() -> str:
        async with connect(first, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("remember 42")])
            return str(sid)

    async def resume(sid: str) -> None:
        async with connect(second, project, server) as rift:
            listed = await rift.conn.list_sessions(cwd=str(project))
            match = [s for s in listed.sessions if s.session_id == sid]
            assert match and match[0].title == "remember 42"
            loaded = await rift.conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
            assert loaded.modes.current_mode_id == "ask"
            assert second.text("user_message_chunk") == "remember 42"
            assert second.text() == "I will remember 42."
            second.updates.clear()
            await rift.conn.prompt(session_id=sid, prompt=[text_block("what was it?")])
            with pytest.raises(RequestError):
                await rift.conn.load_session(cwd=str(project), session_id="../etc", mcp_servers=[])

    sid = run(start())
    run(resume(sid))
    assert second.text() == "It was 42."
    history = str(server.chat_requests()[-1]["messages"])
    assert "remember 42" in history and "I will remember 42." in history


def test_embedded_context_and_resource_links_reach_the_model(
    project: Path, fake_server: Any
) -> None:
    from acp import embedded_text_resource, resource_block, resource_link_block

    server = fake_server({"turns": [{"content": "ok"}]})

    async def scenario() -> None:
        async with connect(Recorder(), project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            uri = (project / "src" / "app.py").as_uri()
            blocks = [
                text_block("explain"),
                resource_link_block("app.py", uri),
                text_block("and"),
                resource_block(embedded_text_resource(uri, "print('hi')")),
            ]
            await rift.conn.prompt(session_id=sid, prompt=blocks)

    run(scenario())
    user = server.chat_requests()[-1]["messages"][-1]["content"]
    assert user.startswith("explain @src/app.py and `src/app.py`")
    assert "<context ref=\"src/app.py\">\nprint('hi')\n</context>" in user


def test_an_editor_mention_attaches_the_buffer_once_not_the_disk(
    project: Path, fake_server: Any
) -> None:
    """Zed sends an @-mentioned file as an embedded resource with its (unsaved) buffer."""
    from acp import embedded_text_resource, resource_block, resource_link_block

    (project / "app.py").write_text("DISK VERSION\n")
    (project / "util.py").write_text("UTIL ON DISK\n")
    server = fake_server({"turns": [{"content": "ok"}]})

    async def scenario() -> None:
        async with connect(Recorder(), project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            blocks = [
                text_block("explain"),
                resource_block(
                    embedded_text_resource((project / "app.py").as_uri(), "BUFFER VERSION")
                ),
                text_block("using"),
                resource_link_block("util.py", (project / "util.py").as_uri()),
            ]
            await rift.conn.prompt(session_id=sid, prompt=blocks)

    run(scenario())
    user = server.chat_requests()[-1]["messages"][-1]["content"]
    assert user.count("BUFFER VERSION") == 1
    assert "DISK VERSION" not in user
    assert user.count("UTIL ON DISK") == 1  # a link is attached from disk, by the core
