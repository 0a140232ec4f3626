"""httpx, imported without its command-line interface: `from rift.net._httpx import httpx`.

httpx imports its optional command-line interface (and with it click, rich and
pygments, about 60 ms) whenever those packages happen to be installed, for
example next to the TUI. rift never uses that interface, so before httpx loads
`httpx._main` is marked absent; httpx then falls back to its built-in stub.
Every module of rift that needs httpx (the https/proxy transport, fetch,
web_search) imports it through here, and only when it is about to use it:
plain-http runs never load httpx at all (models/wire.py).
"""

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402

__all__ = ["httpx"]
