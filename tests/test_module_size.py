"""Every module under src/rift stays at or under 450 lines (STYLE.md habit 8).

A module past that has more than one reason to change; split it by
responsibility rather than raising the cap. `PENDING` names the modules whose
split another branch owns, each capped at its size today so it cannot grow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rift"
CAP = 450
PENDING: dict[str, int] = {
    # The owner branch (issue 28, item 1) splits the conversation owner.
}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def oversized(root: Path) -> list[str]:
    """`path: n lines` for every module over the cap (or over its pending allowance)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        n = _lines(path)
        if n > max(CAP, PENDING.get(name, 0)):
            found.append(f"{name}: {n} lines")
    return found


def test_no_module_over_the_cap() -> None:
    offenders = oversized(PACKAGE)
    assert not offenders, f"split these by responsibility (cap {CAP}):\n" + "\n".join(offenders)


@pytest.mark.parametrize("name", sorted(PENDING))
def test_pending_splits_still_exist(name: str) -> None:
    """An allowance outlives its reason otherwise: drop it once the module is split."""
    path = PACKAGE / name
    assert path.exists() and _lines(path) > CAP, f"{name} is split: remove it from PENDING"


def test_the_check_would_catch_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("x = 1\n" * CAP)
    (tmp_path / "long.py").write_text("x = 1\n" * (CAP + 1))
    assert oversized(tmp_path) == [f"long.py: {CAP + 1} lines"]
