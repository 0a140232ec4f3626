"""The TUI's pure helpers: tool rows, the gauge, token rates, @mentions, hunks."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from rift.core import describe_call
from rift.core.permissions.hunks import diff_segments
from rift.frontends.tui.format import RateMeter, clip, gauge, result_line, short_tokens
from rift.frontends.tui.mentions import complete, token_at
from rift.frontends.tui.screens.review import hunk_text


def salient(tool: str, args: dict[str, Any], width: int = 80) -> str:
    """What a tool row shows after the tool's name: its declared summary, clipped."""
    return clip(describe_call(tool, args).summary, width)


def test_salient_argument_comes_first() -> None:
    assert salient("bash", {"command": "python3 stats.py", "timeout": 5}) == "python3 stats.py"
    assert salient("read", {"path": "src/a.py", "offset": 10}) == "src/a.py"
    assert salient("grep", {"pattern": "TODO", "path": "src"}) == "TODO"
    assert salient("plan", {"set": ["a", "b"]}) == "2 steps"
    assert salient("bash", {"command": "x" * 200}, width=20) == "x" * 19 + "…"
    assert salient("ls", {}) == ""
    assert salient("bash", {"command": "cd src\n  make"}) == "cd src ⏎ make"  # one row
    assert result_line("\n\n  exit 0\nmore") == "exit 0"
    assert result_line("") == "(no output)"


def test_gauge_text_and_levels() -> None:
    assert gauge(13_500, 32_768) == ("ctx 41% 13k/32k", "green")
    assert gauge(19_661, 32_768) == ("ctx 60% 19k/32k", "amber")
    assert gauge(27_525, 32_768) == ("ctx 84% 27k/32k", "amber")
    assert gauge(27_853, 32_768) == ("ctx 85% 27k/32k", "red")
    assert short_tokens(999) == "999"


def test_rate_meter() -> None:
    meter = RateMeter()
    assert meter.rate() == 0.0
    meter.add("x" * 400, now=10.0)
    meter.add("x" * 400, now=11.0)
    assert meter.rate() == 200.0
    meter.reset()
    assert meter.tokens == 0


def test_mention_token_and_completion() -> None:
    assert token_at("look at @src/wi", 15) == "src/wi"
    assert token_at("look at src", 11) is None
    assert token_at("email a@b", 9) is None
    index = ["README.md", "src/widget.py", "src/app.py", "tests/test_widget.py"]
    assert complete("src/", index) == ["src/widget.py", "src/app.py"]
    assert complete("wid", index) == ["src/widget.py", "tests/test_widget.py"]


def test_hunk_text_shows_context_and_both_sides() -> None:
    segments = diff_segments("a\nb\nc\nd\ne", "a\nB\nc\nd\nE")
    assert str(hunk_text(segments, 1)) == "  a\n- b\n+ B\n  c\n  d"
    assert str(hunk_text(segments, 3)) == "  c\n  d\n- e\n+ E"


def test_the_ui_module_paints_before_the_core_loads() -> None:
    """Importing the app must not pull in the agent core or httpx (bench/tui_startup.py)."""
    code = (
        "import json, sys, rift.frontends.tui.app\n"
        "print(json.dumps(sorted(m for m in sys.modules"
        " if m.startswith(('rift.core.conversation.runtime', 'rift.models',"
        " 'httpx', 'markdown_it')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_the_tui_drives_the_conversation_never_the_agents_state() -> None:
    """The TUI is an adapter over `Conversation`: no reaching into the agent's internals."""
    import re
    from pathlib import Path

    root = Path(__file__).parents[2] / "src" / "rift" / "frontends" / "tui"
    pattern = re.compile(r"\bagent\.(messages|journal|binding|ctx|broker|gate)\b")
    hits = [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []
