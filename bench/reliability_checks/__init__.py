"""The checks behind `bench/reliability.py`, shared with `tests/reliability/`.

Each module runs one family of checks against the real `rift` (a subprocess
driven against `tests/fakes/fake_server.py`, or the permission engine in-process)
and returns a `Report`: named figures, each with the value it must have. The
benchmark runs them at full size and prints every figure; the tests run bounded
versions and assert that every figure holds.
"""
