"""The reliability suite runs the checks of `bench/reliability.py` at CI sizes.

The checks live in bench/reliability_checks/ (one implementation for the
benchmark and the tests); this puts bench/ on the import path for them.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
