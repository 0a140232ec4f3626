"""Item 8 of the security issue: a program name that is not a plain word meets every rule.

The attacks themselves are corpus entries of family "bash-syntax" (test_bypass_corpus.py
refuses each). Here: a computed program name is asked about under an ask rule (not
silently run), a deny rule's refusal says why, and ordinary commands that merely
contain `$`, globs, redirections, heredocs or `case` patterns are not caught by it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rift.core.permissions.rules import Rules

pytestmark = pytest.mark.reliability

HERE = Path("/")
DENY = ["Bash(curl *)", "Bash(rm *)", "Bash(git push *)"]


def test_a_computed_program_is_asked_about_under_an_ask_rule() -> None:
    rules = Rules(ask=["Bash(git push *)"], cwd=HERE, home=HERE)
    for command in ("g$()it push", "$0 -c 'git push'", "/usr/bin/gi[t] push"):
        verdict = rules.verdict_for_bash(command)
        assert verdict.kind == "ask", (command, verdict)


def test_a_computed_program_is_refused_naming_the_rule_and_the_reason() -> None:
    verdict = Rules(deny=["Bash(rm *)"], cwd=HERE, home=HERE).verdict_for_bash("r$()m x")
    assert verdict.kind == "deny"
    assert verdict.rule is not None
    assert "Bash(rm *)" in verdict.rule and "program name" in verdict.rule


def test_a_computed_program_still_meets_the_built_in_rules() -> None:
    rules = Rules(cwd=HERE, home=HERE)
    for command in ("r$()m -rf /", "$x -rf /*", ">/dev/null rm -rf /", "busybox rm -rf /"):
        assert rules.verdict_for_bash(command).kind == "deny", command


def test_without_bash_rules_a_computed_program_is_not_refused() -> None:
    assert Rules(cwd=HERE, home=HERE).verdict_for_bash('"$PYTHON" -m pytest').kind == "none"


@pytest.mark.parametrize(
    "command",
    [
        "ls 2>&1",
        "make >/dev/null 2>&1",
        "echo $HOME",
        'printf "%s\\n" "$x" > out.txt',
        "ls *.py",
        "[ -f x ] && echo yes",
        "[[ -n $x ]] && echo yes",
        "for f in *.txt; do echo $f; done",
        "case $x in *) echo any;; esac",
        "cat > run.sh <<'EOF'\n$CMD --flag\n`date`\nEOF\nsh run.sh",
        "cat <<EOF > notes.md\n$(date) ${USER}\nEOF",
        "echo hi # $not a command",
        "x=$(git rev-parse HEAD) && echo $x",
        "alias ll='ls -l'",
        "files=(*.txt); echo ${files[@]}",
        'ls | while read -r f; do wc -l "$f"; done',
    ],
)
def test_ordinary_commands_are_not_caught(command: str) -> None:
    verdict = Rules(deny=DENY, cwd=HERE, home=HERE).verdict_for_bash(command)
    assert verdict.kind != "deny", (command, verdict)


def test_an_allowed_command_with_a_redirection_is_allowed() -> None:
    rules = Rules(allow=["Bash(git status *)"], cwd=HERE, home=HERE)
    assert rules.verdict_for_bash("git status 2>&1").kind == "allow"
