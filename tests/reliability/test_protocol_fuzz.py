"""Protocol fuzzing at CI size: 300 generated lines (one of every family first) into one
`rift --serve`; no crash, every malformed line warned about, nothing but JSON on stdout."""

from __future__ import annotations

import pytest
from reliability_checks.fuzz import run_fuzz
from reliability_checks.fuzz_lines import LineGen, classify

pytestmark = pytest.mark.reliability


def test_fuzzing_a_live_serve_process() -> None:
    report = run_fuzz(300, seed=20240611, busy_every=100)
    assert report.ok, report.describe()
    figures = {f.name: f.value for f in report.figures}
    assert figures["lines sent (busy blocks included)"] >= 300
    assert figures["busy blocks (lines sent while a turn ran)"] >= 3


@pytest.mark.parametrize(
    ("line", "busy", "kind"),
    [
        (b"", False, "silent"),
        (b" \t\r", False, "silent"),
        (b"\x0c", False, "warn"),  # not JSON whitespace: malformed, not blank
        ("\u2028".encode(), False, "warn"),
        (b'{"cmd":"list_sessions","x":NaN}', False, "warn"),
        (b'{"cmd":"cancel"}', False, "silent"),
        (b'{"cmd":"cancel"}', True, "cancel"),
        (b'{"cmd":"prompt","text":"hi"}', True, "warn"),
        (b'{"cmd":"answer","id":12345,"text":"allow"}', False, "silent"),
        (b'{"cmd":"answer","id":"1","text":"allow"}', False, "warn"),
        (b'{"cmd":"undo"}', False, "warn"),
        (b"[" * 100_000, False, "warn"),
        (b'{"cmd":"prompt","text":"a\xffb"}', False, "warn"),
    ],
)
def test_classification_follows_the_spec(line: bytes, busy: bool, kind: str) -> None:
    assert classify(line, busy).kind == kind


def test_the_generator_is_deterministic_and_covers_every_family() -> None:
    first = [line for _, line in LineGen(7).tour()]
    assert first == [line for _, line in LineGen(7).tour()]
    assert len({name for name, _ in LineGen(7).tour()}) == len(LineGen(7).families)
