"""httpx, imported without its command-line interface: `from rift.net._httpx import httpx`.

httpx imports its optional CLI (click, rich, pygments: ~60 ms) whenever those are
installed; rift never uses it, so `httpx._main` is marked absent first. Every module of
rift that needs httpx imports it through here, and only when about to use it.
"""

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402

__all__ = ["httpx"]
