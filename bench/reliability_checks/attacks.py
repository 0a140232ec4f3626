"""Attack families: every attack case, grouped, with how many were tried and refused.

Three sources:

* the corpus (tests/reliability/bypass_corpus.json): each `deny` entry counts in
  its `family` (entries without one: "bash-rules" or "path-rules"), each
  `chains` entry in "allow-chains"; all evaluated in-process against `Rules`;
* scenarios run end to end (`rift -p` / `rift --serve` against the fake server),
  registered in SCENARIOS by family: each returns {case: refused};
* the corpus's `pytest_cases` (attacks the corpus format cannot carry) of the
  other families: their tests run in one pytest process and a case counts as
  refused when its test passed (skipped tests count as not tried). Slow, so
  `--quick` leaves them out and says so.

Every family is required: one case that gets through fails the figure. A family
whose scenarios cannot run here (no usable bubblewrap) is skipped with the reason.
The corpus's `known_gaps` are counted, not required.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .bypass import build_tree, expand_path, load_corpus
from .common import REPO, Report, sandbox
from .file_attacks import race_attacks, undo_path_attacks, writes_outside_attacks
from .process_escape import escape_scenarios
from .sandbox_attacks import remount_attack_as, remount_attack_through_rift, unprivileged_user
from .sandbox_check import probe
from .sandbox_escape import (
    bash_config_attacks,
    config_write_attacks,
    git_attacks,
    outside_dir,
    sandboxed_run_attacks,
)
from .task_input import background_input_attacks

Scenario = Callable[[], dict[str, bool]]


def _remount_as_caller() -> dict[str, bool]:
    with outside_dir() as outside:
        outside.chmod(0o777)
        landed, inside = remount_attack_through_rift(outside)
    return {"remount / then write outside, as the caller": inside and not landed}


def _remount_as_unprivileged() -> dict[str, bool]:
    user = unprivileged_user()
    if user is None:
        return {}
    with outside_dir() as outside:
        outside.chmod(0o777)
        outcome = remount_attack_as(user, outside)
    if outcome is None:
        return {}
    landed, inside = outcome
    return {f"remount / then write outside, as {user}": inside and not landed}


def _background_input() -> dict[str, bool]:
    refused, control, _ = background_input_attacks()
    return {name: ok and control for name, ok in refused.items()}


def _process_escapes() -> dict[str, bool]:
    return {case: not survived for case, survived in escape_scenarios().items()}


SCENARIOS: dict[str, list[tuple[Scenario, bool]]] = {
    "sandbox-root": [(_remount_as_caller, True), (_remount_as_unprivileged, True)],
    "background-input": [(_background_input, False)],
    "sandbox-escape": [
        (sandboxed_run_attacks, True),
        (bash_config_attacks, True),
        (config_write_attacks, False),
        (git_attacks, False),
    ],
    "process-hygiene": [(_process_escapes, False)],
    "undo-paths": [(undo_path_attacks, False)],
    "races": [(race_attacks, False)],
    "writes-outside": [(writes_outside_attacks, False)],
    "git-seams": [(__import__(__package__ + ".git_seams", fromlist=["_"]).git_seam_attacks, False)],
}
"""family -> [(scenario, needs a working bwrap)]; other checks may register more."""


def corpus_families(corpus: dict[str, Any], root: Path) -> dict[str, dict[str, bool]]:
    """{family: {case: refused}} for the corpus's deny and chains entries."""
    from rift.core.permissions.rules import Rules

    cwd, home = build_tree(root, corpus["tree"])
    deny = [*corpus["bash_deny"], *corpus["path_deny"]]
    engines = {
        flag: Rules(deny=deny, cwd=cwd, home=home, case_insensitive=flag) for flag in (False, True)
    }
    families: dict[str, dict[str, bool]] = {}
    for entry in corpus["deny"]:
        engine = engines[bool(entry.get("case_insensitive"))]
        if "bash" in entry:
            family = entry.get("family", "bash-rules")
            verdict = engine.verdict_for_bash(entry["bash"])
        else:
            family = entry.get("family", "path-rules")
            path = expand_path(entry["path"], cwd, home)
            verdict = engine.verdict_for_path(entry["tool"], path)
        case = f"{entry['why']}: {entry.get('bash') or entry.get('path')}"
        families.setdefault(family, {})[case] = verdict.kind == "deny"
    for entry in corpus["chains"]:
        rules = Rules(allow=entry["allow"], cwd=cwd, home=home)
        case = f"{entry['allow'][0]} vs {entry['bash']!r}"
        allowed = rules.verdict_for_bash(entry["bash"]).kind == "allow"
        families.setdefault(entry.get("family", "allow-chains"), {})[case] = not allowed
    return families


def pytest_families(cases: list[dict[str, Any]]) -> dict[str, dict[str, bool]]:
    """{family: {case: its test passed}} for `pytest_cases` entries, in one pytest run.
    A skipped test's cases are left out (not tried); one that never ran counts as failed."""
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    files = list(dict.fromkeys(c["test"].split("::")[0] for c in cases))  # a bad id would
    # abort the whole run; a file that went missing still fails every case in it
    passed: dict[str, bool] = {}
    skipped: set[str] = set()
    with sandbox() as box:
        junit = box.root / "junit.xml"
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junitxml={junit}", *files],
            cwd=REPO,
            env=box.env(),
            capture_output=True,
            timeout=900,
            check=False,
        )  # fmt: skip
        records = ET.parse(junit).iter("testcase") if junit.exists() else iter(())
        for record in records:
            module = record.get("classname", "").replace(".", "/") + ".py"
            test = f"{module}::{record.get('name', '').split('[')[0]}"
            if record.find("skipped") is not None:
                skipped.add(test)
                continue
            failed = record.find("failure") is not None or record.find("error") is not None
            passed[test] = passed.get(test, True) and not failed
    families: dict[str, dict[str, bool]] = {}
    for case in cases:
        if case["test"] in skipped and case["test"] not in passed:
            continue
        families.setdefault(case["family"], {})[case["why"]] = passed.get(case["test"], False)
    return families


def run_attacks(scenarios: bool = True, pytest_cases: bool = True) -> Report:
    """Every family's tried/refused counts; `scenarios=False`: the corpus entries only;
    `pytest_cases=False`: the corpus's pytest-only cases are left out (and noted)."""
    report = Report("attack families")
    corpus = load_corpus()
    with sandbox() as box:
        families = corpus_families(corpus, box.root / "tree")
    external = [c for c in corpus.get("pytest_cases", []) if c["family"] not in SCENARIOS]
    if external and pytest_cases:
        for family, cases in pytest_families(external).items():
            families.setdefault(family, {}).update(cases)
    elif external:
        left = sorted({c["family"] for c in external})
        report.notes.append(
            f"{len(external)} pytest-only cases ({', '.join(left)}) not run here;"
            " they run without --quick and in pytest tests/reliability/"
        )
    skipped: list[str] = []
    if scenarios:
        no_bwrap = probe()
        for family, entries in SCENARIOS.items():
            for scenario, needs_bwrap in entries:
                if needs_bwrap and no_bwrap:
                    skipped.append(f"{family}/{scenario.__name__.strip('_')}")
                    continue
                try:
                    outcome = scenario()
                except Exception as exc:  # a crashed scenario fails its family, visibly
                    outcome = {f"{scenario.__name__.strip('_')} crashed: {exc!r}"[:200]: False}
                families.setdefault(family, {}).update(outcome)
        if skipped:
            report.skipped = f"{no_bwrap}: skipped {', '.join(skipped)}"
            report.notes.append(report.skipped)
    for family in sorted(families):
        cases = families[family]
        refused = sum(cases.values())
        report.add(
            f"{family}: refused", refused, f" of {len(cases)} tried", want=f"== {len(cases)}"
        )
        for case, ok in cases.items():
            if not ok:
                report.problem(f"{family}: got through: {case}")
    engine_gaps = _known_gaps(corpus)
    report.add("known gaps that get through (documented, not required)", engine_gaps[0],
               f" of {engine_gaps[1]}")  # fmt: skip
    return report


def _known_gaps(corpus: dict[str, Any]) -> tuple[int, int]:
    from rift.core.permissions.rules import Rules

    here = Path("/")
    rules = Rules(deny=corpus["bash_deny"], cwd=here, home=here)
    gaps = corpus["known_gaps"]
    return sum(rules.verdict_for_bash(g["bash"]).kind != "deny" for g in gaps), len(gaps)
