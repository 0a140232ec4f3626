"""The permission rule engine: precedence, families, paths, bash segments and bypasses.

Paths are real files under tmp_path so canonicalisation (symlinks, `..`, files
that do not exist yet) is exercised the way the tools will meet it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rift.config.load import PermissionsConfig
from rift.config.rule_syntax import Rule, parse_rule, parse_rules
from rift.core.permissions.bash_forms import split_bash_segments
from rift.core.permissions.rules import BUILTIN_BASH_DENY, Rules, Verdict, path_candidates
from rift.core.permissions.suggestions import suggest_bash_pattern, suggest_edit_rule


@dataclass(frozen=True)
class Tree:
    """A project directory, a home, and a vault reached through a symlink."""

    cwd: Path
    home: Path
    vault: Path


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    cwd, home, vault = tmp_path / "proj", tmp_path / "home", tmp_path / "vault"
    for directory in (cwd / "src" / "sub", home / ".ssh", vault, cwd / "docs"):
        directory.mkdir(parents=True, exist_ok=True)
    for file in (
        cwd / "src" / "a.py",
        cwd / "src" / "sub" / "b.py",
        cwd / "README.md",
        cwd / "top.py",
        home / ".ssh" / "id_rsa",
        vault / "key",
    ):
        file.write_text("x")
    (cwd / "secrets").symlink_to(vault)
    (cwd / "docs" / "alias.py").symlink_to(cwd / "src" / "a.py")
    return Tree(cwd=cwd, home=home, vault=vault)


def rules(
    tree: Tree, allow: tuple[str, ...] = (), ask: tuple[str, ...] = (), deny: tuple[str, ...] = ()
) -> Rules:
    return Rules(allow, ask, deny, cwd=tree.cwd, home=tree.home)


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("text", "tool", "pattern"),
    [
        ("Edit", "edit", None),
        ("bash", "bash", None),
        ("Edit(src/**)", "edit", "src/**"),
        ("Bash(echo (hi))", "bash", "echo (hi)"),
        ("READ(~/.ssh/**)", "read", "~/.ssh/**"),
        ("mcp__files_read(x)", "mcp__files_read", "x"),
        ("  Bash(git *)  ", "bash", "git *"),
    ],
)
def test_parse_rule_accepts(text: str, tool: str, pattern: str | None) -> None:
    rule = parse_rule(text)
    assert rule is not None
    assert (rule.tool, rule.pattern) == (tool, pattern)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "(x)",
        "Edit()",
        "Edit( )",
        "Edit(x",
        "Edit(x))",
        "Edit(x)y",
        "Edit(a) (b)",
        "Bash(echo (hi)",
        "Bash(echo hi))",
        "Ed-it(x)",
        "Edit x",
        "Edit)",
        "Bash([z-a])",
    ],
)
def test_parse_rule_rejects_malformed(text: str) -> None:
    assert parse_rule(text) is None
    parsed, warnings = parse_rules([text])
    assert parsed == []
    assert warnings == [f"ignoring malformed permission rule: {text}"]


def test_malformed_rules_are_skipped_with_warnings(tree: Tree) -> None:
    r = rules(tree, allow=("Edit(", "Edit(src/**)"), deny=("(x)",))
    assert r.warnings == (
        "ignoring malformed permission rule: Edit(",
        "ignoring malformed permission rule: (x)",
    )
    assert r.verdict_for_path("edit", Path("src/a.py")) == Verdict("allow", "Edit(src/**)")
    assert r.listing() == {"allow": ("Edit(src/**)",), "ask": (), "deny": ()}


# ------------------------------------------------------------------ paths

PATH_CASES = [
    # (allow, ask, deny, tool, path, expected kind)
    # precedence: deny > ask > allow > none
    (("Edit(src/**)",), ("Edit(src/**)",), ("Edit(src/**)",), "edit", "src/a.py", "deny"),
    (("Edit(src/**)",), ("Edit(src/**)",), (), "edit", "src/a.py", "ask"),
    (("Edit(src/**)",), (), (), "edit", "src/a.py", "allow"),
    ((), (), (), "edit", "src/a.py", "none"),
    (("Edit",), ("Edit(src/**)",), (), "edit", "src/a.py", "ask"),
    (("Edit",), (), ("Write(src/**)",), "edit", "src/a.py", "allow"),
    # families: Edit covers edit+write, Read covers read/ls/grep/glob/outline
    ((), (), ("Edit(src/**)",), "write", "src/a.py", "deny"),
    ((), (), ("Edit(src/**)",), "read", "src/a.py", "none"),
    ((), (), ("Write(src/**)",), "write", "src/a.py", "deny"),
    ((), (), ("Write(src/**)",), "edit", "src/a.py", "none"),
    *[
        ((), (), ("Read(src/**)",), t, "src/a.py", "deny")
        for t in ("read", "ls", "grep", "glob", "outline")
    ],
    ((), (), ("Read(src/**)",), "edit", "src/a.py", "none"),
    ((), (), ("Read(src/**)",), "write", "src/a.py", "none"),
    ((), (), ("Bash",), "edit", "src/a.py", "none"),
    # bare names match every use; tool names are case-insensitive
    ((), (), ("Read",), "grep", "/etc/passwd", "deny"),
    ((), (), ("read",), "READ", "README.md", "deny"),
    ((), (), ("eDiT(src/**)",), "Edit", "src/a.py", "deny"),
    # * stays in one directory, ** crosses
    ((), (), ("Edit(src/*)",), "edit", "src/a.py", "deny"),
    ((), (), ("Edit(src/*)",), "edit", "src/sub/b.py", "none"),
    ((), (), ("Edit(src/**)",), "edit", "src/sub/b.py", "deny"),
    ((), (), ("Edit(**/*.py)",), "edit", "top.py", "deny"),
    ((), (), ("Edit(**/*.py)",), "edit", "src/sub/b.py", "deny"),
    ((), (), ("Edit(*.py)",), "edit", "src/a.py", "none"),
    ((), (), ("Edit(*.py)",), "edit", "top.py", "deny"),
    ((), (), ("Edit(src/?.py)",), "edit", "src/a.py", "deny"),
    ((), (), ("Edit(src/[ab].py)",), "edit", "src/a.py", "deny"),
    ((), (), ("Edit(src/{a,z}.py)",), "edit", "src/a.py", "deny"),
    ((), (), ("Edit(./src/**)",), "edit", "src/a.py", "deny"),
    # ~/ expands to home
    ((), (), ("Read(~/.ssh/**)",), "read", "{home}/.ssh/id_rsa", "deny"),
    ((), (), ("Read(~/.ssh/*)",), "read", "{home}/.ssh/id_rsa", "deny"),
    # relative and absolute candidates
    ((), (), ("Edit({cwd}/src/**)",), "edit", "src/a.py", "deny"),
    ((), (), ("Edit(src/**)",), "edit", "{cwd}/src/a.py", "deny"),
    # `..` is folded before matching, both ways
    ((), (), ("Edit(src/**)",), "edit", "docs/../src/a.py", "deny"),
    ((), (), ("Edit(src/**)",), "edit", "src/../README.md", "none"),
    (("Edit(src/**)",), (), (), "edit", "src/../../vault/key", "none"),
    (("Edit(src/**)",), (), (), "edit", "src/sub/../../../vault/key", "none"),
    ((), (), ("Edit(../vault/**)",), "edit", "{vault}/key", "deny"),
    # symlinks are resolved: the real target is what the rules see
    ((), (), ("Read(secrets/**)",), "read", "secrets/key", "deny"),
    ((), (), ("Read({vault}/**)",), "read", "secrets/key", "deny"),
    ((), (), ("Read(src/**)",), "read", "docs/alias.py", "deny"),
    (("Edit(docs/**)",), (), (), "edit", "docs/alias.py", "none"),
    # files that do not exist yet canonicalise their nearest existing ancestor
    ((), (), ("Edit(src/**)",), "write", "src/new/deep/file.py", "deny"),
    ((), (), ("Read(secrets/**)",), "read", "secrets/not-yet", "deny"),
    ((), (), ("Read({vault}/**)",), "read", "secrets/new/dir/x", "deny"),
]


@pytest.mark.parametrize(("allow", "ask", "deny", "tool", "path", "kind"), PATH_CASES)
def test_verdict_for_path(
    tree: Tree,
    allow: tuple[str, ...],
    ask: tuple[str, ...],
    deny: tuple[str, ...],
    tool: str,
    path: str,
    kind: str,
) -> None:
    def fill(text: str) -> str:
        for key, value in (("{cwd}", tree.cwd), ("{home}", tree.home), ("{vault}", tree.vault)):
            text = text.replace(key, str(value))
        return text

    r = rules(tree, tuple(map(fill, allow)), tuple(map(fill, ask)), tuple(map(fill, deny)))
    verdict = r.verdict_for_path(tool, Path(fill(path)))
    assert verdict.kind == kind
    assert (verdict.rule is None) == (kind == "none")


def test_verdict_names_the_deciding_rule(tree: Tree) -> None:
    r = rules(tree, allow=("Edit",), ask=("Edit(docs/**)",), deny=("Read(~/.ssh/**)",))
    assert r.verdict_for_path("edit", Path("docs/x.md")) == Verdict("ask", "Edit(docs/**)")
    assert r.verdict_for_path("edit", Path("top.py")) == Verdict("allow", "Edit")
    home_key = tree.home / ".ssh" / "id_rsa"
    assert r.verdict_for_path("ls", home_key) == Verdict("deny", "Read(~/.ssh/**)")


def test_path_candidates(tree: Tree) -> None:
    real = tree.cwd.resolve()
    assert path_candidates(Path("src/./sub/../a.py"), tree.cwd) == [
        "src/a.py",
        f"{real.as_posix()}/src/a.py",
    ]
    assert path_candidates(Path("secrets/key"), tree.cwd) == [
        (tree.vault.resolve() / "key").as_posix()
    ]


def test_case_insensitive_matching_is_a_switch(tree: Tree) -> None:
    strict = Rules(deny=("Edit(SRC/**)",), cwd=tree.cwd, home=tree.home, case_insensitive=False)
    loose = Rules(deny=("Edit(SRC/**)",), cwd=tree.cwd, home=tree.home, case_insensitive=True)
    assert strict.verdict_for_path("edit", Path("src/a.py")).kind == "none"
    assert loose.verdict_for_path("edit", Path("src/a.py")).kind == "deny"


# ------------------------------------------------------------------- bash


@pytest.mark.parametrize(
    ("command", "segments"),
    [
        ("ls -la", ["ls -la"]),
        ("  git   status  ", ["git status"]),
        ("git status && rm -rf x", ["git status", "rm -rf x"]),
        ("a; b | c & d\ne", ["a", "b", "c", "d", "e"]),
        ("echo `rm x` $(ls)", ["echo", "rm x", "ls"]),
        ("rm${IFS}-rf${IFS}/", ["rm -rf /"]),
        ("rm$IFS-rf$IFS/", ["rm -rf /"]),
        ("a$@b$*c", ["a b c"]),
        ("", []),
        (";;&&", []),
    ],
)
def test_split_bash_segments(command: str, segments: list[str]) -> None:
    assert split_bash_segments(command) == segments


DENY = ("Bash(rm *)", "Bash(sudo *)", "Bash(curl *)")

BYPASSES = [
    "rm -rf x",
    "rm",
    "rm${IFS}-rf${IFS}/",
    "rm${IFS:0:1}-rf x",
    "sudo${IFS}whoami",
    "git status && rm -rf x",
    "echo `rm -rf x`",
    "echo $(rm -rf x)",
    "$(rm -rf x)",
    "ls\nrm -rf x",
    "ls; rm -rf x",
    "false || rm -rf x",
    "ls | rm -rf x",
    "sleep 1 & rm -rf x",
    "/bin/rm -rf x",
    "./rm -rf x",
    '"rm" -rf x',
    "'rm' -rf x",
    "r\\m -rf x",
    'r""m -rf x',
    "FOO=1 rm x",
    "FOO='a b' BAR=2 rm x",
    "env rm x",
    "env -i PATH=/bin rm x",
    "command rm x",
    "exec rm x",
    "nohup rm x",
    "time rm x",
    "nice -n 5 rm x",
    "timeout 5 rm x",
    "echo x | xargs rm",
    "command env FOO=1 /usr/bin/rm x",
    'eval "rm -rf x"',
    "eval rm -rf x",
    "sh -c 'rm -rf x'",
    'bash -c "curl evil"',
    "bash -lc 'curl evil'",
    "/bin/bash -o pipefail -c 'curl evil'",
    "bash -c \"sh -c 'rm -rf x'\"",
    "sh -c 'echo hi; rm -rf x'",
    "(rm x)",
    "RM -rf x",
    "Curl evil",
    "{rm,-rf,x}",
    "'sudo' x",
]


@pytest.mark.parametrize("command", BYPASSES)
def test_bypass_attempts_are_refused(tree: Tree, command: str) -> None:
    r = rules(tree, allow=("Bash",), deny=DENY)
    verdict = r.verdict_for_bash(command)
    assert verdict.kind == "deny", command
    assert verdict.rule in {*(f"Bash({p})" for p in BUILTIN_BASH_DENY), *DENY, "Bash(rm -rf /)"}


@pytest.mark.parametrize("command", BYPASSES)
def test_ask_rules_see_the_same_forms(tree: Tree, command: str) -> None:
    r = rules(tree, allow=("Bash",), ask=DENY)
    assert r.verdict_for_bash(command).kind in {"ask", "deny"}


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "echo rm",
        "grep -r sudo .",
        "git commit -m 'rm -rf x'",
        "python rm.py",
        "xrm -rf x",
        "curly x",
        "cat README.md",
    ],
)
def test_harmless_commands_are_not_denied(tree: Tree, command: str) -> None:
    r = rules(tree, deny=("Bash(rm *)", "Bash(sudo *)", "Bash(curl *)"))
    assert r.verdict_for_bash(command).kind == "none", command


BUILTIN_CASES = [
    "sudo",
    "sudo whoami",
    "rm -rf /",
    "rm -rf /*",
    "rm -fr /",
    "rm -rf  /",
    "rm -r -f /",
    "rm -Rf /",
    "rm -rf //",
    "rm --recursive --force /",
    "rm --no-preserve-root -rf /",
    "mkfs.ext4 /dev/sda",
    "shutdown -h now",
    "reboot",
    "halt",
    "poweroff",
    "dd if=/dev/zero of=/dev/sda bs=1M",
    "chmod -R 777 /",
    "chmod -R 777 /etc",
    "chown -R me /",
    "/usr/bin/sudo ls",
    "FOO=1 sudo ls",
    "SUDO ls",
    "echo hi; sudo ls",
    "bash -c 'sudo ls'",
    "eval 'rm -rf /'",
]


@pytest.mark.parametrize("command", BUILTIN_CASES)
def test_builtin_deny_list_holds_with_no_rules(tree: Tree, command: str) -> None:
    verdict = rules(tree).verdict_for_bash(command)
    assert verdict.kind == "deny", command


@pytest.mark.parametrize("command", BUILTIN_CASES)
def test_builtin_deny_list_beats_allow_everything(tree: Tree, command: str) -> None:
    assert rules(tree, allow=("Bash", "Bash(*)")).verdict_for_bash(command).kind == "deny"


@pytest.mark.parametrize("command", ["rm -rf build", "rm -f /tmp/x", "ls /", "echo sudo"])
def test_builtin_deny_list_leaves_ordinary_commands_alone(tree: Tree, command: str) -> None:
    assert rules(tree).verdict_for_bash(command).kind == "none"


BASH_CASES = [
    # (allow, ask, deny, command, expected kind)
    (("Bash(git status)",), (), (), "git status", "allow"),
    (("Bash(git status)",), (), (), "git status && curl evil", "none"),
    (("Bash(git *)",), (), (), "git status && curl evil", "none"),
    (("Bash(git *)",), (), (), "git status; git log | git shortlog", "allow"),
    (("Bash(git *)",), (), (), "git", "allow"),
    (("Bash(git *)",), (), (), "gitk", "none"),
    (("Bash(git *)",), (), (), "git status `curl evil`", "none"),
    (("Bash(git *)",), (), (), "git log $(curl evil)", "none"),
    (("Bash(git status)",), (), (), "FOO=1 git status", "none"),
    (("Bash(git status)",), (), (), "./git status", "none"),
    (("Bash(ls *)", "Bash(wc *)"), (), (), "ls -la | wc -l", "allow"),
    (("Bash(ls *)",), (), (), "ls -la | wc -l", "none"),
    (("Bash(git *)",), ("Bash(git push *)",), (), "git push origin main", "ask"),
    (("Bash(git *)",), ("Bash(git push *)",), (), "git status && git push", "ask"),
    (("Bash(git *)",), ("Bash(git push *)",), ("Bash(git push *)",), "git push", "deny"),
    (("Bash",), (), (), "anything at all", "allow"),
    ((), ("Bash",), (), "ls", "ask"),
    ((), (), ("Bash",), "ls", "deny"),
    (("Edit",), (), (), "ls", "none"),
    ((), (), ("Bash(git push --force*)",), "git push --force origin", "deny"),
    ((), (), ("Bash(git push --force*)",), "git push origin", "none"),
    (("Bash(npm   run *)",), (), (), "npm run   test", "allow"),
    (("Bash(echo (hi))",), (), (), "echo (hi)", "none"),
    (("Bash(git status)",), (), (), "", "none"),
]


@pytest.mark.parametrize(("allow", "ask", "deny", "command", "kind"), BASH_CASES)
def test_verdict_for_bash(
    tree: Tree,
    allow: tuple[str, ...],
    ask: tuple[str, ...],
    deny: tuple[str, ...],
    command: str,
    kind: str,
) -> None:
    assert rules(tree, allow, ask, deny).verdict_for_bash(command).kind == kind


@settings(max_examples=200, deadline=None)
@given(prefix=st.text(alphabet=st.sampled_from(list("ab $;&|()`\"'\\\n=-/*{},")), max_size=30))
def test_any_prefix_then_a_denied_segment_is_denied(prefix: str) -> None:
    here = Path("/")
    r = Rules(allow=("Bash",), deny=("Bash(rm *)",), cwd=here, home=here)
    assert r.verdict_for_bash(prefix + " && rm -rf x").kind == "deny"
    assert r.verdict_for_bash(prefix + "\nrm x").kind == "deny"


@settings(max_examples=200, deadline=None)
@given(command=st.text(max_size=60))
def test_arbitrary_commands_never_crash(command: str) -> None:
    here = Path("/")
    r = Rules(
        allow=("Bash(git *)",), ask=("Bash(curl *)",), deny=("Bash(rm *)",), cwd=here, home=here
    )
    assert r.verdict_for_bash(command).kind in {"deny", "ask", "allow", "none"}


# ----------------------------------------------------- session rules, display


def test_session_allow_rules_and_listing(tree: Tree) -> None:
    r = rules(tree, allow=("Bash(ls *)",), ask=("Edit(docs/**)",), deny=("Bash(curl *)",))
    assert r.verdict_for_bash("make test").kind == "none"
    assert r.add_allow("Bash(make *)") is None
    assert r.add_allow("Bash(make *)") is None
    assert r.verdict_for_bash("make test") == Verdict("allow", "Bash(make *)")
    assert r.add_allow("Edit(") == "ignoring malformed permission rule: Edit("
    assert r.listing() == {
        "allow": ("Bash(ls *)", "Bash(make *)"),
        "ask": ("Edit(docs/**)",),
        "deny": ("Bash(curl *)",),
    }
    r.add_allow("Edit(docs/**)")
    assert r.verdict_for_path("edit", Path("docs/x")).kind == "ask"  # ask still beats allow


def test_builtins_are_hidden_from_listing(tree: Tree) -> None:
    assert rules(tree).listing() == {"allow": (), "ask": (), "deny": ()}


def test_from_config(tree: Tree) -> None:
    perms = PermissionsConfig(allow=("Bash(ls *)",), deny=("Read(~/.ssh/**)",))
    r = Rules.from_config(perms, cwd=tree.cwd, home=tree.home)
    assert r.verdict_for_bash("ls -la").kind == "allow"
    assert r.verdict_for_path("read", tree.home / ".ssh" / "id_rsa").kind == "deny"


def test_verdict_for_text(tree: Tree) -> None:
    r = rules(tree, allow=("Fetch(https://docs.python.org/*)",), deny=("Fetch(*evil*)",))
    assert r.verdict_for_text("fetch", ["https://docs.python.org/3/"]).kind == "allow"
    assert r.verdict_for_text("fetch", ["https://evil.example/"]).kind == "deny"
    assert r.verdict_for_text("fetch", ["https://other.org/"]).kind == "none"


def test_rule_covers() -> None:
    assert Rule("Edit", "edit", None).covers("WRITE")
    assert not Rule("Write", "write", None).covers("edit")


# ------------------------------------------------------------- suggestions


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("git push origin main", "git push *"),
        ("ls -la", "ls *"),
        ("python script.py", "python *"),
        ("make", "make *"),
        ("FOO=1 make", "FOO=1 make *"),
        ("cargo build --release", "cargo build *"),
        ("cat src/x.py", "cat *"),
        ("npm  run   test", "npm run *"),
        ("git status;curl x", "git status *"),
        ("* -x", "[*] *"),
    ],
)
def test_suggest_bash_pattern(tree: Tree, command: str, pattern: str) -> None:
    assert suggest_bash_pattern(command) == pattern
    first = split_bash_segments(command)[0]
    assert rules(tree, allow=(f"Bash({pattern})",)).verdict_for_bash(first).kind == "allow"


def test_suggest_bash_pattern_of_nothing_is_nothing() -> None:
    assert suggest_bash_pattern("  ;; ") == ""


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("src/sub/b.py", "Edit(src/**)"),
        ("src/a.py", "Edit(src/**)"),
        ("README.md", "Edit(README.md)"),
        ("new dir/x.txt", "Edit(new dir/**)"),
        ("we*ird.txt", "Edit(we[*]ird.txt)"),
        ("{vault}/key", "Edit({vault}/**)"),
        ("{vault}/deeper/k", "Edit({vault}/deeper/**)"),
    ],
)
def test_suggest_edit_rule(tree: Tree, path: str, rule: str) -> None:
    real_vault = tree.vault.resolve().as_posix()
    target = Path(path.replace("{vault}", real_vault))
    expected = rule.replace("{vault}", real_vault)
    assert suggest_edit_rule(target, tree.cwd) == expected
    granted = rules(tree, allow=(expected,))
    assert granted.verdict_for_path("edit", target).kind == "allow"


def test_suggest_edit_rule_never_offers_the_whole_drive(tree: Tree) -> None:
    rule = suggest_edit_rule(Path("/etc.conf"), tree.cwd)
    assert rule == "Edit(/etc.conf)"


# ------------------------------------------------------------ credential guard


def _guard_tree(tmp_path: Path) -> tuple[Path, Path]:
    home, cwd = tmp_path / "home", tmp_path / "home" / "work" / "proj"
    for d in (cwd, home / ".ssh", home / ".aws", home / ".config" / "rift"):
        d.mkdir(parents=True, exist_ok=True)
    return cwd, home


def test_the_credential_guard_denies_reads_until_the_user_lifts_it(tmp_path: Path) -> None:
    cwd, home = _guard_tree(tmp_path)
    rules = Rules(cwd=cwd, home=home)
    for path in (home / ".ssh" / "id_rsa", home / ".aws", home / ".config/rift/config.json"):
        for tool in ("read", "ls", "grep", "glob", "outline"):
            verdict = rules.verdict_for_path(tool, path)
            assert verdict.kind == "deny" and "credential guard" in (verdict.rule or "")
    assert rules.verdict_for_path("read", tmp_path / "other" / ".env.local").kind == "deny"
    assert rules.verdict_for_path("read", cwd / ".env").kind == "none"  # the project's own
    assert rules.verdict_for_path("edit", home / ".aws" / "credentials").kind == "none"
    assert rules.verdict_for_bash("cat ~/.aws/credentials").kind == "deny"
    assert rules.verdict_for_bash("cat README.md ../../.ssh/id_rsa").kind == "deny"
    assert rules.verdict_for_bash("cat README.md .env").kind != "deny"

    lifted = Rules(allow=["Read(~/.aws/**)"], cwd=cwd, home=home)
    assert lifted.verdict_for_path("read", home / ".aws" / "credentials").kind == "allow"
    assert lifted.verdict_for_bash("cat ~/.aws/credentials").kind != "deny"
    assert lifted.verdict_for_path("read", home / ".ssh" / "id_rsa").kind == "deny"
    denied = Rules(allow=["Read(~/.aws/**)"], deny=["Read(~/.aws/**)"], cwd=cwd, home=home)
    assert denied.verdict_for_path("read", home / ".aws" / "x").rule == "Read(~/.aws/**)"

    session = Rules(cwd=cwd, home=home)
    session.add_allow("Read(~/.ssh/**)")  # a live grant never lifts it
    assert session.verdict_for_path("read", home / ".ssh" / "id_rsa").kind == "deny"


def test_the_guard_follows_the_config(tmp_path: Path) -> None:
    cwd, home = _guard_tree(tmp_path)
    moved = tmp_path / "xdg" / "rift"
    perms = PermissionsConfig(own_dirs=(moved, home / ".local/share/rift"))
    rules = Rules.from_config(perms, cwd=cwd, home=home)
    assert rules.verdict_for_path("read", moved / "config.json").kind == "deny"
    assert rules.verdict_for_path("read", home / ".config/rift/config.json").kind == "none"
    off = Rules.from_config(PermissionsConfig(allow_credentials=True), cwd=cwd, home=home)
    assert off.verdict_for_path("read", home / ".ssh" / "id_rsa").kind == "none"
    assert off.verdict_for_path("read", tmp_path / ".env").kind == "none"


def test_a_guarded_dir_rift_was_started_in_is_not_guarded(tmp_path: Path) -> None:
    _, home = _guard_tree(tmp_path)
    inside = home / ".config" / "rift"
    rules = Rules(cwd=inside, home=home)
    assert rules.verdict_for_path("read", inside / "config.json").kind == "none"
    assert rules.verdict_for_path("read", home / ".ssh" / "id_rsa").kind == "deny"


def test_a_command_holding_a_nul_byte_gets_a_verdict() -> None:
    """Found by the property test above in CI: `/\x00` crashed the credential-path check."""
    here = Path("/")
    r = Rules(deny=("Bash(rm *)",), cwd=here, home=here)
    assert r.verdict_for_bash("/\x00").kind in {"deny", "ask", "allow", "none"}
    assert r.verdict_for_bash("cat ~/.ssh/id_rsa\x00").kind in {"deny", "ask", "allow", "none"}
