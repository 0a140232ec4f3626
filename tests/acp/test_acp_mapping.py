"""The pure ACP ⇄ rift translations: permission options, prompt text, editor MCP servers."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("acp")

from acp import (
    embedded_blob_resource,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)
from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio

from rift.core.permissions.choices import ask_options
from rift.events import AskOption
from rift.frontends.acp.mapping import mcp_configs, permission_choices, prompt_text


def _options(choices: list[str], rule: str) -> list[AskOption]:
    """What the gate says its choices mean (the session choice is the one naming it)."""
    session = next((c for c in choices if c.endswith("this session")), None)
    always = [c for c in choices if c.startswith("always allow '")]
    pair = (always[0], always[1]) if always else None
    return ask_options(choices, session=session, always=pair, rule=rule)


def _table(choices: list[str], tool: str | None) -> list[tuple[str, str, str]]:
    offered = permission_choices(_options(choices, "R"), tool)
    return [(o.option_id, o.kind, offered.answers[o.option_id]) for o in offered.options]


def test_bash_ask_offers_all_four_kinds() -> None:
    choices = [
        "allow once",
        "always allow 'git status*' in this project",
        "always allow 'git status*' everywhere",
        "allow all bash this session",
        "deny",
    ]
    assert _table(choices, "bash") == [
        ("allow_once", "allow_once", "allow once"),
        ("allow_always", "allow_always", "always allow 'git status*' in this project"),
        ("allow_always_1", "allow_always", "always allow 'git status*' everywhere"),
        ("allow_always_2", "allow_always", "allow all bash this session"),
        ("reject_once", "reject_once", "deny"),
        ("reject_always", "reject_always", "deny"),
    ]


def test_write_ask_prefers_the_session_rule_for_allow_always() -> None:
    choices = [
        "allow",
        "always allow write this session",
        "always allow 'Edit(src/**)' in this project",
        "always allow 'Edit(src/**)' everywhere",
        "deny",
    ]
    table = _table(choices, "write")
    assert table[1] == ("allow_always", "allow_always", "always allow write this session")
    assert table[0] == ("allow_once", "allow_once", "allow")


def test_a_trust_ask_keeps_its_words_and_has_no_reject_always() -> None:
    offered = permission_choices(ask_options(["trust", "skip"]), None)
    assert [(o.option_id, o.kind, o.name) for o in offered.options] == [
        ("choice_0", "allow_once", "Trust"),
        ("reject_once", "reject_once", "Skip"),
    ]
    assert offered.answers == {"choice_0": "trust", "reject_once": "skip"}


def test_prompt_text_mentions_resources_and_appends_context(tmp_path: Path) -> None:
    inside = (tmp_path / "pkg" / "a.py").as_uri()
    outside = Path("/etc/hosts").as_uri()
    text = prompt_text(
        [
            text_block("look at"),
            resource_link_block("a.py", inside),
            text_block(" and "),
            resource_link_block("hosts", outside),
            resource_block(embedded_text_resource(inside, "x = 1")),
            resource_block(embedded_blob_resource("file:///bin/ls", "AAAA")),
            image_block("AAAA", "image/png"),
        ],
        tmp_path,
    )
    assert text.images == ()
    first, *context = text.text.split("\n\n")
    assert first == (
        "look at @pkg/a.py and @/etc/hosts `pkg/a.py` `/bin/ls`"
        " [image left out: this model cannot see images]"
    )
    assert context == [
        '<context ref="pkg/a.py">\nx = 1\n</context>',
        "[binary attachment /bin/ls left out]",
    ]


def test_images_go_along_when_the_model_sees(tmp_path: Path) -> None:
    blocks = [
        text_block("compare"),
        image_block("AAAA", "image/png"),
        resource_block(embedded_blob_resource("file:///shot.jpg", "BBBB", mime_type="image/jpeg")),
    ]
    parts = prompt_text(blocks, tmp_path, sees=True)
    assert parts.text == "compare `/shot.jpg`"
    assert parts.images == ("data:image/png;base64,AAAA", "data:image/jpeg;base64,BBBB")


def test_editor_mcp_servers_in_rift_config_shape() -> None:
    servers = mcp_configs(
        [
            McpServerStdio(
                name="fs",
                command="mcp-fs",
                args=["--root", "."],
                env=[EnvVariable(name="A", value="1")],
            ),
            HttpMcpServer(
                type="http",
                name="web",
                url="http://127.0.0.1:9/mcp",
                headers=[HttpHeader(name="X", value="y")],
            ),
        ]
    )
    assert [(s.name, s.command, s.args, s.env, s.url, s.headers, s.project) for s in servers] == [
        ("fs", "mcp-fs", ("--root", "."), (("A", "1"),), None, (), False),
        ("web", None, (), (), "http://127.0.0.1:9/mcp", (("X", "y"),), False),
    ]
