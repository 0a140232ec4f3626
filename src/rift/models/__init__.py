"""Model-server clients behind one `Provider` protocol (see base.py).

httpx imports its optional command-line interface (and with it click, rich
and pygments, about 60 ms) whenever those packages happen to be installed,
for example next to the TUI. rift never uses that interface, so before any
provider module imports httpx we mark `httpx._main` as absent; httpx then
falls back to its built-in stub. This keeps `rift --serve` fast to `ready`.
"""

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
