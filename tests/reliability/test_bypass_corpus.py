"""The permission gate against tests/reliability/bypass_corpus.json.

Every `deny` entry is refused, no `chains` entry is allowed by its allow rule (one
test each, so a regression names its bypass), a sample runs end to end through
`rift -p` without anything running, and a property test chains random separators
between an allowed command and a denied one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability_checks.bypass import build_tree, check_end_to_end, expand_path, load_corpus
from reliability_checks.common import Report

from rift.core.permissions.rules import Rules

pytestmark = pytest.mark.reliability

CORPUS = load_corpus()


def _label(entry: dict[str, Any]) -> str:
    return f"{entry['why']}: {entry.get('bash') or entry.get('path')}"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_tree(tmp_path_factory.mktemp("corpus"), CORPUS["tree"])


def test_the_corpus_is_big_enough() -> None:
    assert len(CORPUS["deny"]) >= 100
    assert len(CORPUS["chains"]) >= 20


@pytest.mark.parametrize("entry", CORPUS["deny"], ids=_label)
def test_deny_rules_refuse_every_bypass(entry: dict[str, Any], tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    rules = Rules(
        deny=[*CORPUS["bash_deny"], *CORPUS["path_deny"]],
        cwd=cwd,
        home=home,
        case_insensitive=bool(entry.get("case_insensitive")),
    )
    if "bash" in entry:
        verdict = rules.verdict_for_bash(entry["bash"])
    else:
        verdict = rules.verdict_for_path(entry["tool"], expand_path(entry["path"], cwd, home))
    assert verdict.kind == "deny", verdict


@pytest.mark.parametrize("entry", CORPUS["chains"], ids=lambda e: f"{e['allow'][0]}: {e['bash']}")
def test_an_allow_rule_never_covers_a_chain(entry: dict[str, Any], tree: tuple[Path, Path]) -> None:
    cwd, home = tree
    assert (
        Rules(allow=entry["allow"], cwd=cwd, home=home).verdict_for_bash(entry["bash"]).kind
        != "allow"
    )


def test_denied_commands_and_writes_never_run_end_to_end() -> None:
    report = Report("bypass corpus end to end")
    check_end_to_end(CORPUS, report)
    assert report.ok, report.describe()


SEPARATORS = [";", "&&", "||", "|", "&", "\n", "|&", " $(", " `", " <(", ";{ ", "; if true; then "]


@settings(max_examples=150, deadline=None)
@given(
    separator=st.sampled_from(SEPARATORS),
    spelling=st.sampled_from(
        ["curl", "'curl'", "c\\url", "/usr/bin/curl", "env -u X curl", "CURL"]
    ),
    args=st.text(alphabet="abc -./", max_size=12),
)
def test_a_chain_after_an_allowed_command_is_refused(
    separator: str, spelling: str, args: str
) -> None:
    here = Path("/")
    rules = Rules(allow=["Bash(git status *)"], deny=["Bash(curl *)"], cwd=here, home=here)
    verdict = rules.verdict_for_bash(f"git status{separator}{spelling} {args}")
    assert verdict.kind == "deny", verdict


def test_every_pytest_case_names_a_test_that_exists() -> None:
    root = Path(__file__).resolve().parents[2]
    for case in CORPUS["pytest_cases"]:
        assert case["family"] and case["why"], case
        path, _, name = case["test"].partition("::")
        assert f"def {name}(" in (root / path).read_text(encoding="utf-8"), case["test"]
