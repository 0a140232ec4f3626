"""Model-server clients behind one `Provider` protocol (see base.py).

`http.py` is the one HTTP client they share; plain-http servers are reached over
`wire.py` (h11), https and proxied ones over httpx (`httpx_transport.py`,
imported only then, through `rift.net._httpx`).
"""
