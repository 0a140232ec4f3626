"""`rift doctor` against a llama-server without speculation says which `--spec-type` flag
to add and why; with it, no advice (issue 45). The `/props` and `/slots` shapes are what
llama-server 0.3.36 (the build rift installs) answered with and without
`--spec-type ngram-simple`: `/props` says "none" either way, `/slots` tells them apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift

pytestmark = pytest.mark.timeout(60)

PROBE_CALL = {"name": "report_number", "arguments": {"number": 7}}
PROPS = {
    "default_generation_settings": {"n_ctx": 4096, "params": {"speculative.types": "none"}},
    "total_slots": 1,
    "modalities": {"vision": False},
    "chat_template": "{% if tools %}...{% endif %}",
    "build_info": "b1-test",
}
FLAG = "--spec-type ngram-simple"


def _doctor(fake_server: Any, project: Path, **script: Any) -> str:
    server = fake_server(
        {
            "wire": "openai",
            "props": PROPS,
            "models": [{"name": "qwen"}],
            "turns": [{"tool_calls": [PROBE_CALL]}],
            **script,
        }
    )
    run = run_rift(["doctor", "--host", server.v1_url, "-m", "qwen"], project, timeout=50)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_doctor_advises_spec_type_when_llama_server_has_none(
    fake_server: Any, project: Path
) -> None:
    report = _doctor(fake_server, project, slots=[{"id": 0, "speculative": False}])
    rows = [row for row in report.splitlines() if " speculation " in row]
    assert rows and rows[0].split()[0] == "info", report
    assert f"add {FLAG} to llama-server" in report
    assert "same output" in report


def test_doctor_gives_no_advice_when_slots_draft(fake_server: Any, project: Path) -> None:
    report = _doctor(fake_server, project, slots=[{"id": 0, "speculative": True}])
    assert FLAG not in report
    assert "speculative decoding" in report  # the ok line


def test_doctor_reads_props_types_without_slots(fake_server: Any, project: Path) -> None:
    props = {**PROPS, "default_generation_settings": {"params": {"speculative.types": "ngram-mod"}}}
    report = _doctor(fake_server, project, props=props)
    assert FLAG not in report and "speculative decoding" in report
    # and "none" with no /slots to say otherwise: the advice
    assert FLAG in _doctor(fake_server, project)
