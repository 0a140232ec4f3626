"""Run a benchmark offline: re-executed inside a fresh network namespace, loopback only.

Why: a benchmark of agents on self-hosted weights must show that nothing in it
reached the network (no hosted model, no update check, no price list, no
download mid-run). `unshare -rn` gives the harness and everything it starts
(llama-server, rift, aider, the tests) a network namespace of their own in
which only `lo` exists; it is brought up here (an ioctl, so the `ip` tool is
not needed). Connections to anything but 127.0.0.1 fail at once.

`-r` maps the caller's user to root inside a new user namespace, so no real
privilege is needed; where user namespaces are disabled the probe fails and
the benchmark says so in its header and runs with the network as it is.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys

MARKER = "RIFT_BENCH_NETNS"
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
IFREQ = "16sh22x"  # struct ifreq on Linux: the name, the flags, the rest of the union


def loopback_up() -> None:
    """Set `lo` up in this (new) namespace."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack(IFREQ, b"lo", 0)
        flags = struct.unpack(IFREQ, fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack(IFREQ, b"lo", flags | IFF_UP))


def interfaces() -> list[str]:
    """The network interfaces this process sees (only `lo` inside the namespace)."""
    try:
        return sorted(name for _, name in socket.if_nameindex())
    except OSError:
        return []


def probe() -> str | None:
    """None when `unshare -rn` works here, else why it does not (one line)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "no unshare command (util-linux)"
    try:
        run = subprocess.run([unshare, "-rn", "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare -rn failed: {exc}"
    if run.returncode != 0:
        return f"unshare -rn failed: {run.stderr.strip() or run.returncode}"
    return None


def isolate(argv: list[str]) -> str:
    """Re-exec this script inside a new network namespace, or say why not.

    Returns the line for the results header: called again inside the
    namespace (MARKER set), it brings loopback up and describes the namespace.
    """
    if os.environ.get(MARKER) == "1":
        loopback_up()
        return f"offline: own network namespace (unshare -rn), interfaces {','.join(interfaces())}"
    reason = probe()
    if reason is not None:
        print(f"bench: not isolated from the network: {reason}", file=sys.stderr)
        return f"NOT isolated from the network: {reason}"
    env = dict(os.environ, **{MARKER: "1"})
    unshare = shutil.which("unshare") or "unshare"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(unshare, [unshare, "-rn", sys.executable, *argv], env)
    raise AssertionError("unreachable")  # pragma: no cover
