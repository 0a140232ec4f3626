"""The permission gate against a corpus of bypasses (tests/reliability/bypass_corpus.json).

In-process, against `Rules`: every `deny` entry (commands and paths, built in a
real directory tree with symlinks) must be refused, every `chains` entry must
not be allowed by its allow rule, and the `known_gaps` are counted. End to end,
`rift -p` against the fake server runs the `e2e_bash` commands and `e2e_writes`
writes under the corpus's deny rules: none of their marker files may appear,
while a control command in the same run (not denied) must create its file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from .common import MODEL, REPO, Report, fake_server, rift_argv, sandbox

CORPUS = REPO / "tests" / "reliability" / "bypass_corpus.json"


def load_corpus() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return data


def build_tree(root: Path, tree: dict[str, Any]) -> tuple[Path, Path]:
    """`root/project` (the cwd) and `root/home`, with the corpus's dirs, files and links."""
    from rift.core.permissions.rules import Rules  # noqa: F401  (fail early if rift is missing)

    cwd, home = root / "project", root / "home"
    cwd.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    for d in tree.get("dirs", []):
        (cwd / d).mkdir(parents=True, exist_ok=True)
    for f in tree.get("files", []):
        (cwd / f).write_text("x", encoding="utf-8")
    for link, target in tree.get("symlinks", {}).items():
        if not (cwd / link).is_symlink():
            os.symlink(target, cwd / link)
    return cwd, home


def expand_path(raw: str, cwd: Path, home: Path) -> Path:
    """The path a tool would hand the gate: placeholders filled, relative to the cwd."""
    path = Path(raw.replace("{cwd}", str(cwd)).replace("{home}", str(home)))
    return path if path.is_absolute() else cwd / path


def check_in_process(corpus: dict[str, Any], root: Path, report: Report) -> None:
    from rift.core.permissions.rules import Rules

    cwd, home = build_tree(root, corpus["tree"])
    deny = [*corpus["bash_deny"], *corpus["path_deny"]]
    rules = {
        flag: Rules(deny=deny, cwd=cwd, home=home, case_insensitive=flag) for flag in (False, True)
    }
    bash_total = path_total = bash_missed = path_missed = 0
    for entry in corpus["deny"]:
        engine = rules[bool(entry.get("case_insensitive"))]
        if "bash" in entry:
            bash_total += 1
            verdict = engine.verdict_for_bash(entry["bash"])
        else:
            path_total += 1
            verdict = engine.verdict_for_path(entry["tool"], expand_path(entry["path"], cwd, home))
        if verdict.kind != "deny":
            report.problem(
                f"not refused ({entry['why']}): {entry.get('bash') or entry.get('path')!r}"
            )
            if "bash" in entry:
                bash_missed += 1
            else:
                path_missed += 1
    widened = 0
    for entry in corpus["chains"]:
        verdict = Rules(allow=entry["allow"], cwd=cwd, home=home).verdict_for_bash(entry["bash"])
        if verdict.kind == "allow":
            widened += 1
            report.problem(f"{entry['allow']} allowed the chain {entry['bash']!r}")
    engine = rules[False]
    gaps = sum(engine.verdict_for_bash(e["bash"]).kind != "deny" for e in corpus["known_gaps"])
    total = bash_total + path_total
    refused = total - bash_missed - path_missed
    report.add("corpus: commands and paths a deny rule covers", total, want=">= 100")
    report.add("  bash commands refused", bash_total - bash_missed, f" of {bash_total}")
    report.add("  paths refused", path_total - path_missed, f" of {path_total}")
    report.add("refused (in-process)", round(100 * refused / total, 1), " %", want="== 100")
    report.add("chains an allow rule covered", widened, f" of {len(corpus['chains'])}", want="== 0")
    report.add("known gaps that get through (documented)", gaps, f" of {len(corpus['known_gaps'])}")


def _e2e_script(corpus: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    calls: list[dict[str, Any]] = []
    markers: list[str] = []
    for i, command in enumerate(corpus["e2e_bash"]):
        marker = f"marker-bash-{i}"
        markers.append(marker)
        args = {"command": command.replace("{marker}", marker)}
        calls.append({"id": f"d{i}", "name": "bash", "arguments": args})
        calls.append({"id": f"o{i}", "name": "bash", "arguments": {"command": f"echo ok-{i}"}})
    for i, raw in enumerate(corpus["e2e_writes"]):
        markers.append(raw)
        args = {"path": raw, "content": "should not exist\n"}
        calls.append({"id": f"w{i}", "name": "write", "arguments": args})
        calls.append({"id": f"q{i}", "name": "bash", "arguments": {"command": f"echo fine-{i}"}})
    control = {"command": "printf ran > control-ran"}
    calls.append({"id": "control", "name": "bash", "arguments": control})
    return {"turns": [{"tool_calls": calls}, {"content": "all attempted"}]}, markers


def check_end_to_end(corpus: dict[str, Any], report: Report) -> None:
    script, markers = _e2e_script(corpus)
    with sandbox() as box, fake_server(script) as server:
        deny = [*corpus["e2e_deny"], *corpus["e2e_path_deny"]]
        box.write_user_config({"permissions": {"deny": deny}})
        build_tree(box.root, {"dirs": ["secrets", "sub"], "symlinks": {"link": "secrets"}})
        proc = subprocess.run(
            [*rift_argv(), "-p", "try them", "--host", server.url, "-m", MODEL],
            cwd=box.project,
            env=box.env(),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        ran = [
            m
            for m in markers
            if expand_path(m.replace("{cwd}", str(box.project)), box.project, box.home).exists()
        ]
        control = (box.project / "control-ran").exists()
    for marker in ran:
        report.problem(f"end to end: {marker} was created")
    if proc.returncode != 0 or not control:
        report.problem(
            f"end to end: exit {proc.returncode}, control ran={control}: {proc.stderr[-600:]}"
        )
    report.add("end-to-end attempts through rift -p", len(markers))
    report.add("end-to-end attempts that ran", len(ran), want="== 0")
    report.add("end-to-end control command ran", int(control), want="== 1")


def run_bypass(e2e: bool = True) -> Report:
    report = Report("permission gate bypass corpus")
    corpus = load_corpus()
    with sandbox() as box:
        check_in_process(corpus, box.root / "tree", report)
    if e2e:
        check_end_to_end(corpus, report)
    return report
