"""Item 4 of the security issue: input to a background shell passes the permission gate.

One real `rift -p` run (bench/reliability_checks/task_input.py): a background `sh`
fed `rm` in several spellings under `deny Bash(rm *)` deletes nothing, while a
line no rule covers still reaches the shell.
"""

from __future__ import annotations

import pytest
from reliability_checks.task_input import background_input_attacks

pytestmark = pytest.mark.reliability


def test_lines_fed_to_a_background_shell_are_gated() -> None:
    refused, control, stderr = background_input_attacks()
    assert control, f"the allowed control line never reached the shell: {stderr}"
    through = [name for name, ok in refused.items() if not ok]
    assert not through, f"deleted despite deny Bash(rm *): {through}"
