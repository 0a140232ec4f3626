"""Permission precedence end to end: deny > ask > allow > approval mode, headless.

In `rift -p` nobody can answer a prompt, so: a deny rule refuses, an ask rule
refuses ("requires interactive approval … no user is attached"), anything
else runs. Turning approval off (user config `"approve": false`) suppresses
ask rules but never deny rules; `--approve` turns it back on.

Each scenario is one `rift -p` run whose scripted model makes one tool call
per table row (ids `row_<n>`); a row is judged by the JSON output's
`tools[n].ok` and by the session file's tool result text.

Safety: commands that would be destructive if the gate failed (`rm -rf /`,
`sudo`, `curl`) only ever run under a user-config `bash_wrapper` that prints
the command instead of running it. The unwrapped scenario only aims `rm -rf`
at throwaway `victim_*` directories in the test's temp project, and asserts
each still exists afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SAFE_WRAPPER = "printf 'WOULD RUN: %s\\n' {cmd}"

PROJECT_RULES = {
    "permissions": {
        "deny": ["Bash(rm *)", "Bash(curl *)", "Edit(secret/**)", "Read(private/*)"],
        "ask": ["Bash(git push *)", "Edit(config/**)"],
    }
}
USER_ALLOW = ["Bash(rm *)", "Bash(git *)", "Bash(echo *)", "Edit(secret/**)", "Edit(config/**)"]

DENIED = "blocked by permission rule"
NO_USER = "requires interactive approval"


@dataclass
class Row:
    """One tool call and what must come of it."""

    tool: str
    args: dict[str, Any]
    ok: bool
    says: tuple[str, ...] = ()
    """Substrings the tool result must contain."""
    never: tuple[str, ...] = ()
    """Substrings it must not contain (leaks)."""


def bash(command: str, ok: bool, *says: str) -> Row:
    return Row("bash", {"command": command}, ok, says)


@dataclass
class Scenario:
    rows: list[Row]
    wrapped: bool = True
    user: dict[str, Any] = field(default_factory=dict)
    flags: tuple[str, ...] = ()


def _victims(n: int) -> list[str]:
    return [f"victim_{i}" for i in range(1, n + 1)]


SCENARIOS: dict[str, Scenario] = {
    # Real shell, harmless targets: if the gate failed, only victim_* dirs would go.
    "bypass_attempts_unwrapped": Scenario(
        wrapped=False,
        rows=[
            bash("rm -rf victim_1", False, DENIED, "'Bash(rm *)'"),
            bash("git status && rm -rf victim_2", False, DENIED, "'Bash(rm *)'"),
            bash("echo `rm -rf victim_3`", False, DENIED),
            bash("echo $(rm -rf victim_4)", False, DENIED),
            bash("echo fine\nrm -rf victim_5", False, DENIED),
            bash("echo allowed-row", True, "allowed-row"),
            bash("rm${IFS}-rf${IFS}victim_6", False, DENIED),
            bash("FOO=1 /bin/rm -rf victim_7", False, DENIED),
            bash("sh -c 'rm -rf victim_8'", False, DENIED),
            bash("{rm,-rf,victim_9}", False, DENIED),
            bash("true; r\\m -rf victim_10", False, DENIED),
        ],
    ),
    # Approval on (the default); the command only ever reaches printf.
    "rules_approval_on": Scenario(
        rows=[
            bash("rm${IFS}-rf${IFS}/", False, DENIED, "Bash(rm -rf /)"),
            bash("sudo${IFS}whoami", False, DENIED, "Bash(sudo"),
            bash("curl${IFS}http://example.invalid/x", False, DENIED, "'Bash(curl *)'"),
            bash("git push origin main", False, NO_USER, "'Bash(git push *)'", "no user"),
            bash("git status", True, "WOULD RUN: git status"),
            bash("echo no rule at all", True, "WOULD RUN: echo no rule at all"),
            bash("rm -r -f /", False, DENIED),
            bash("shred -u notes.txt", False, DENIED, "'Bash(shred *)'"),  # a user deny rule
            bash("ls\nsudo id", False, DENIED, "Bash(sudo"),
        ],
    ),
    # Approval off is all-or-nothing: ask rules go quiet, deny rules still hold.
    "approval_off": Scenario(
        user={"approve": False},
        rows=[
            bash("git push origin main", True, "WOULD RUN: git push origin main"),
            Row("write", {"path": "config/app.json", "content": '{"v": 2}'}, True),
            bash("curl http://example.invalid", False, DENIED),
            bash("rm${IFS}-rf${IFS}/", False, DENIED),
            Row("write", {"path": "secret/key.txt", "content": "k"}, False, (DENIED,)),
        ],
    ),
    # --approve forces approval back on over the user's "approve": false.
    "approve_flag_beats_user_off": Scenario(
        user={"approve": False},
        flags=("--approve",),
        rows=[
            bash("git push origin main", False, NO_USER),
            Row("write", {"path": "config/app.json", "content": "{}"}, False, (NO_USER,)),
            bash("echo still fine", True, "WOULD RUN: echo still fine"),
        ],
    ),
    "path_rules": Scenario(
        rows=[
            Row("write", {"path": "secret/new.txt", "content": "x"}, False, (DENIED,)),
            Row(
                "edit",
                {"path": "secret/existing.txt", "old_string": "orig", "new_string": "pwned"},
                False,
                (DENIED, "'Edit(secret/**)'"),
            ),
            Row("write", {"path": "alias/new.txt", "content": "x"}, False, (DENIED,)),
            Row("write", {"path": "notes/../secret/dots.txt", "content": "x"}, False, (DENIED,)),
            Row("write", {"path": "{project}/secret/abs.txt", "content": "x"}, False, (DENIED,)),
            Row("write", {"path": "notes/ok.txt", "content": "fine"}, True, ("Wrote 4 bytes",)),
            Row("read", {"path": "private/data.txt"}, False, (DENIED, "'Read(private/*)'")),
            Row("read", {"path": "plink.txt"}, False, (DENIED,), ("TOPSECRET",)),
            Row("read", {"path": "notes/../private/data.txt"}, False, (DENIED,), ("TOPSECRET",)),
            Row(
                "edit",
                {"path": "config/app.json", "old_string": "{}", "new_string": '{"v": 3}'},
                False,
                (NO_USER, "'Edit(config/**)'"),
            ),
            Row("ls", {"path": "private"}, True, (), ("data.txt",)),
            Row("grep", {"pattern": "TOPSECRET"}, True, (), ("TOPSECRET", "data.txt")),
            Row("glob", {"pattern": "**/*.txt"}, True, ("notes/ok.txt",), ("private/data",)),
            Row("read", {"path": "private/deep/inner.txt"}, True, ("one level",)),
        ],
    ),
}


def _lay_out(project: Path) -> None:
    for victim in _victims(10):
        (project / victim).mkdir()
        (project / victim / "keep.txt").write_text("keep")
    (project / "secret").mkdir()
    (project / "secret/existing.txt").write_text("orig\n")
    (project / "alias").symlink_to(project / "secret", target_is_directory=True)
    (project / "private/deep").mkdir(parents=True)
    (project / "private/data.txt").write_text("TOPSECRET\n")
    (project / "private/deep/inner.txt").write_text("one level down is not covered by *\n")
    (project / "plink.txt").symlink_to(project / "private/data.txt")
    (project / "notes").mkdir()
    (project / "notes/todo.md").write_text("notes\n")
    (project / "config").mkdir()
    (project / "config/app.json").write_text("{}")


def _call(n: int, row: Row, project: Path) -> dict[str, Any]:
    args = dict(row.args)
    if "{project}" in args.get("path", ""):
        args["path"] = args["path"].replace("{project}", str(project))
    return {"id": f"row_{n}", "name": row.tool, "arguments": args}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_permission_precedence(name: str, harness: Any) -> None:
    scenario = SCENARIOS[name]
    project = harness.project
    _lay_out(project)
    harness.write_project_config(PROJECT_RULES)
    user = {
        **scenario.user,
        "permissions": {"allow": USER_ALLOW, "deny": ["Bash(shred *)"]},
    }
    if scenario.wrapped:
        user["permissions"]["bash_wrapper"] = SAFE_WRAPPER
    harness.write_config(user)
    calls = [_call(n, row, project) for n, row in enumerate(scenario.rows)]
    server = harness.server([{"tool_calls": calls}, {"content": "finished"}])

    run = harness.run("try each of these", server, *scenario.flags)
    assert run.code == 0, run.describe()
    tools = run.result["tools"]
    results = run.tool_results()
    problems: list[str] = []
    for n, row in enumerate(scenario.rows):
        text = results.get(f"row_{n}", "<no tool result>")
        where = f"row {n} {row.tool} {row.args}: ok={tools[n]['ok']} result={text!r}"
        if tools[n] != {"name": row.tool, "ok": row.ok}:
            problems.append(where)
        if text.startswith("ERROR: ") == row.ok:
            problems.append(f"{where} (ERROR prefix disagrees with ok)")
        problems += [f"{where} (missing {s!r})" for s in row.says if s not in text]
        problems += [f"{where} (leaks {s!r})" for s in row.never if s in text]
    assert not problems, "\n".join(problems)

    # Nothing a refused call aimed at was touched.
    for victim in _victims(10):
        assert (project / victim / "keep.txt").exists(), victim
    assert sorted(p.name for p in (project / "secret").iterdir()) == ["existing.txt"]
    assert (project / "secret/existing.txt").read_text() == "orig\n"
    expected = '{"v": 2}' if name == "approval_off" else "{}"
    assert (project / "config/app.json").read_text() == expected


def test_ask_rule_refuses_headless_even_for_an_allowed_edit(harness: Any) -> None:
    """ask beats allow; the refusal text reaches the model and the file stays put."""
    (harness.project / "config").mkdir()
    (harness.project / "config/app.json").write_text("{}")
    harness.write_project_config(PROJECT_RULES)
    harness.write_config({"permissions": {"allow": ["Edit(config/**)"]}})
    call = {
        "id": "c1",
        "name": "write",
        "arguments": {"path": "config/app.json", "content": '{"x": 1}'},
    }
    server = harness.server([{"tool_calls": [call]}, {"content": "could not"}])
    run = harness.run("update config", server)
    assert run.result["tools"] == [{"name": "write", "ok": False}]
    result = run.tool_results()["c1"]
    assert result == (
        "ERROR: this action requires interactive approval (permission rule"
        " 'Edit(config/**)') and no user is attached"
    )
    assert (harness.project / "config/app.json").read_text() == "{}"
    # The model was told, in the next request.
    assert "no user is attached" in str(server.chat_requests()[1]["messages"][-1])


BARE_DENIED = {
    "plan": {"set": ["step"]},
    "outline": {"path": "notes/todo.md"},
    "ls": {"path": "notes"},
    "remember": {"text": "the user likes tabs"},
    "task": {"command": "echo hi"},
}
"""Five refusals in a row: under the limit that stops a turn after repeated failures."""


def test_a_bare_tool_name_in_deny_refuses_every_call_of_that_tool(harness: Any) -> None:
    """`deny: ["Plan"]` refuses the plan tool whatever its arguments, for tools without a
    path, command or URL to match as well as for those with one (`Ls` is not `Read`)."""
    (harness.project / "notes").mkdir()
    (harness.project / "notes/todo.md").write_text("# notes\n")
    deny = [name.capitalize() for name in BARE_DENIED]
    harness.write_config({"permissions": {"deny": deny}})
    calls = [
        {"id": f"row_{n}", "name": name, "arguments": args}
        for n, (name, args) in enumerate(BARE_DENIED.items())
    ]
    server = harness.server([{"tool_calls": [_read_call(), *calls]}, {"content": "done"}])
    run = harness.run("try each of these", server)
    assert run.code == 0, run.describe()
    results = run.tool_results()
    for n, name in enumerate(BARE_DENIED):
        expected = f"blocked by permission rule '{name.capitalize()}'"
        assert expected in results[f"row_{n}"], (name, results[f"row_{n}"])
    assert "# notes" in results["row_read"]  # a rule for another tool leaves it alone
    assert not (harness.project / ".rift" / "memory.md").exists()


def _read_call() -> dict[str, Any]:
    return {"id": "row_read", "name": "read", "arguments": {"path": "notes/todo.md"}}
