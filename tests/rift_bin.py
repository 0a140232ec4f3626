"""Which rift the tests run: `RIFT_BIN` when set (to check another build), else this one."""

from __future__ import annotations

import os
import shlex
import sys

RIFT_CMD = [sys.executable, "-m", "rift"]


def rift_command() -> list[str]:
    """The rift under test as an argv prefix."""
    custom = os.environ.get("RIFT_BIN")
    return shlex.split(custom) if custom else list(RIFT_CMD)
