"""ACP's tool cards come from the tools' own declarations, not from a table in ACP.

For every tool rift defines, the `tool_call` an editor receives carries the kind
the tool declares (tools/base.py `Tool.kind`, ACP's vocabulary 1:1), and a tool
that declares it asks stays `pending` while the mode may ask; the others run
at once. The translator is fed the core's events directly, as the session does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("acp")

from rift.core import describe_call
from rift.events import ToolStart
from rift.frontends.acp.updates import Translator
from rift.tools import registered_tools

TOOLS = registered_tools()


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_the_card_kind_and_status_come_from_the_declaration(name: str, tmp_path: Path) -> None:
    tool = TOOLS[name]
    args = {"path": "a.txt", "command": "make", "pattern": "x", "url": "https://e.x"}
    asking = Translator(cwd=tmp_path, may_ask=lambda _: True)
    start, *rest = asking.feed(ToolStart(name, args, "c1"))
    assert start.session_update == "tool_call"
    assert start.kind == tool.kind
    assert start.title == describe_call(name, args).title
    assert start.status == "pending"
    assert [u.status for u in rest] == ([] if tool.asks else ["in_progress"])
    unasked = Translator(cwd=tmp_path, may_ask=lambda _: False)
    _, *running = unasked.feed(ToolStart(name, args, "c1"))
    assert [u.status for u in running] == ["in_progress"]  # the mode never asks: it runs


def test_a_tool_rift_does_not_define_is_other_and_runs_at_once(tmp_path: Path) -> None:
    translator = Translator(cwd=tmp_path, may_ask=lambda _: True)
    start, running = translator.feed(ToolStart("srv_echo", {"text": "ping"}, "c1"))
    assert (start.kind, start.title, running.status) == ("other", "srv_echo", "in_progress")


def test_a_long_title_is_cut_for_the_editor(tmp_path: Path) -> None:
    translator = Translator(cwd=tmp_path, may_ask=lambda _: False)
    start, _ = translator.feed(ToolStart("bash", {"command": "x" * 300}, "c1"))
    assert start.title == "x" * 119 + "…"
