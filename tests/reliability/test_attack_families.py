"""`bench/reliability.py`'s attack families: every corpus case lands in a named family,
and the report counts tried and refused per family (the end-to-end scenarios it
also runs have their own tests in this directory)."""

from __future__ import annotations

import pytest
from reliability_checks.attacks import SCENARIOS, run_attacks

pytestmark = pytest.mark.reliability


def test_every_corpus_family_is_counted_and_refused() -> None:
    # The corpus's pytest-only cases are tests of this suite already; running them a
    # second time in a child pytest here took past the time limit once they grew.
    report = run_attacks(scenarios=False, pytest_cases=False)
    names = {f.name.split(":")[0] for f in report.figures}
    assert {"bash-syntax", "bash-rules", "path-rules", "allow-chains"} <= names
    assert report.ok, report.describe()


def test_the_end_to_end_families_are_registered() -> None:
    assert {"sandbox-root", "background-input", "sandbox-escape", "process-hygiene"} <= set(
        SCENARIOS
    )


def test_the_issue_30_families_have_cases() -> None:
    """web_search, fetch hosts, language servers, ACP paths and encodings each have cases
    (run as pytest cases by bench/reliability.py, tried/refused per family)."""
    from reliability_checks.bypass import load_corpus

    families = {case["family"] for case in load_corpus()["pytest_cases"]}
    wanted = {"web_search", "fetch-hosts", "lsp-workspace", "acp-paths", "encodings"}
    assert wanted <= families
