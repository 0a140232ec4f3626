"""An optional real sandbox for `bash`: bubblewrap (`permissions.sandbox: "bwrap"`).

The permission rules read the command's text, and text can always be computed
(`$(printf rm)`, `base64 -d | sh`, a script). The sandbox constrains what the
process can do instead. Each bash command (foreground or background task) runs as

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
          --bind PROJECT PROJECT [--unshare-net] (--unshare-user | root's caps)
          --cap-drop ALL --unshare-pid --die-with-parent --chdir CWD sh -c COMMAND

so the project directory is the only writable place that outlives the command:
the rest of the filesystem is read-only, /tmp is a private scratch tmpfs (a write
there succeeds and vanishes), the network is cut unless `permissions.
sandbox_network` is true (user config only), and the command gets its own PID
namespace: when it ends, is cancelled, times out, or rift dies (even SIGKILL:
`--die-with-parent`), every process it started goes with it. There is no
`--new-session`: rift already starts each command in a new session with no
terminal, and keeping bwrap's process group lets rift kill the group as before.

Root is confined too: a plain bwrap leaves root every capability, and
`mount -o remount,rw /` undoes the read-only bind. Every capability is
dropped (`--cap-drop ALL`) except, for root, the two that let it write files it
does not own (CAP_DAC_OVERRIDE, CAP_FOWNER): a container's root often works in
a checkout owned by the host user, and those reach only the writable binds.
Other callers also get their own user namespace (`--unshare-user`, mapped to
their uid; unprivileged bwrap needs one anyway); root does not, since
capabilities inside a user namespace never reach files of unmapped owners.
Where user namespaces cannot be created (a setuid bwrap on a kernel that forbids
them), the probe retries without `--unshare-user`.

Every listening Unix socket of the host outside the project (docker.sock, a
session bus, an ssh agent: a read-only bind still lets a process connect) has
/dev/null bound over it (`host_sockets`).

rift's own config and data directories (config.json, plugins, trust stores)
are bound read-only on top when they lie inside the project (or hold it), so
a sandboxed command never rewrites what decides the next run's hooks and
rules; the write and edit tools are kept out of them by the gate.

What the sandbox costs: caches and config under $HOME are read-only (`pip
install --user`, `npm -g` and git commits in a worktree whose .git lives outside
the project fail), and with the network cut nothing can be downloaded.

When bwrap is missing or cannot create namespaces (probed once with the real
flags), startup shows one warning and bash falls back to `bash_wrapper` when one
is configured, else runs unsandboxed: never silently. The gate (deny rules,
approval) always sees the raw command; only the executed string is wrapped.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct, field
from msgspec.structs import replace

SANDBOXES = ("bwrap",)
PROBE_TIMEOUT_S = 10.0


class Bubblewrap(Struct, frozen=True):
    """bwrap with the project writable and everything else read-only."""

    executable: str
    project: Path
    """Canonical project directory: the one writable bind."""
    network: bool = False
    user_namespace: bool = True
    """`--unshare-user` (never for root): off where the probe found them unavailable."""
    root: bool = field(default_factory=lambda: _euid() == 0)
    """Running as root: capabilities dropped but for writing files root does not own."""
    protected: tuple[Path, ...] = ()
    """rift's own directories that overlap the project: bound read-only over it."""
    hidden: tuple[tuple[str, ...], ...] = ()
    """bwrap options hiding each credential store (sandbox_hide.hidden_stores)."""
    read_only: tuple[str, ...] = ()
    """Project paths that run code later, bound read-only (sandbox_hide.read_only_names)."""
    pinned: tuple[str, ...] = ()
    """Their folders, bound over themselves so they cannot be renamed (sandbox_hide)."""

    def argv(self, cwd: Path) -> list[str]:
        """bwrap and its options, up to (not including) the command."""
        project = str(self.project)
        args = [
            self.executable,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",
            "--bind", project, project,
        ]  # fmt: skip
        for path in self.protected:
            args += ["--ro-bind", str(path), str(path)]
        for option in self.hidden:
            args += option
        for name in self.pinned:
            args += ["--bind", name, name]
        for name in self.read_only:
            args += ["--ro-bind", name, name]
        for socket_path in host_sockets(self.project):
            args += ["--ro-bind", "/dev/null", socket_path]  # connect() now fails
        if not self.network:
            args.append("--unshare-net")
        args += ["--cap-drop", "ALL"]
        if self.root:
            args += ["--cap-add", "CAP_DAC_OVERRIDE", "--cap-add", "CAP_FOWNER"]
        elif self.user_namespace:
            args.append("--unshare-user")
        args += ["--unshare-pid", "--die-with-parent", "--chdir", str(cwd)]
        return args

    def wrap(self, command: str, cwd: Path) -> str:
        """The shell command that runs `command` inside the sandbox (`exec`: bwrap takes
        the place of the outer shell, so rift's process-group kill reaches it directly)."""
        import shlex  # on first use: a run that never sandboxes a command skips it

        return "exec " + shlex.join([*self.argv(cwd), "sh", "-c", command])


def host_sockets(project: Path) -> list[str]:
    """Paths of the host's listening Unix sockets a sandboxed command could connect to.

    A read-only bind still lets a process connect to a socket file, and one such
    socket (`/var/run/docker.sock`, a desktop session bus, an ssh agent) is a way out
    of the sandbox. The kernel lists every bound socket of this network namespace in
    /proc/net/unix; each one outside the project (the project's own, a dev server's,
    stay usable), /tmp and /dev (both replaced inside) gets /dev/null bound over it.
    Abstract sockets (`@name`) are cut with the network (`--unshare-net`).
    """
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
            lines = table.read().splitlines()[1:]
    except OSError:
        return []
    top = str(project).rstrip("/") + "/"
    found: list[str] = []
    for line in lines:
        fields = line.split(None, 7)
        path = fields[7] if len(fields) == 8 else ""
        if not path.startswith("/") or path.startswith((top, "/tmp/", "/dev/", "/proc/")):
            continue
        if os.path.realpath(path).startswith(top) or not os.path.exists(path):
            continue
        found.append(path)
    return sorted(set(found))


def choose_sandbox(
    kind: str | None,
    *,
    network: bool,
    project: Path,
    has_wrapper: bool,
    protected: Sequence[Path] = (),
    home: Path | None = None,
) -> tuple[Bubblewrap | None, str | None]:
    """The sandbox bash commands run in, and the startup warning when the configured
    one cannot be used (None when all is well or none was asked for).

    `protected`: rift's own config and data directories, kept read-only inside and
    hidden outside the project. `home`: whose credential stores are hidden ($HOME).
    """
    if not kind or kind.lower() in ("none", "off"):
        return None, None
    import shutil  # past the common case: shutil loads bz2, lzma and fnmatch

    fallback = "using the bash_wrapper template instead" if has_wrapper else "running unsandboxed"
    if kind.lower() != "bwrap":
        valid = ", ".join(SANDBOXES)
        return None, f"unknown permissions.sandbox '{kind}' (valid: {valid}); {fallback}"
    executable = shutil.which("bwrap")
    if executable is None:
        return None, (
            "permissions.sandbox is 'bwrap' but bubblewrap is not installed (Debian/Ubuntu:"
            f" apt-get install bubblewrap); {fallback}"
        )
    real_project = Path(os.path.realpath(project))
    overlapping = _overlapping(protected, real_project)
    from rift.tools.sandbox_hide import hidden_stores, pinned_names, read_only_names

    hidden = hidden_stores(home or Path(os.path.expanduser("~")), real_project, protected)
    sandbox = Bubblewrap(
        executable,
        real_project,
        network,
        protected=overlapping,
        hidden=tuple(tuple(option) for option in hidden),
        read_only=tuple(read_only_names(real_project)),
        pinned=tuple(pinned_names(real_project)),
    )
    problem = _probe(tuple(sandbox.argv(sandbox.project)))
    if problem:
        fallback_box = replace(sandbox, user_namespace=False)
        if not _probe(tuple(fallback_box.argv(sandbox.project))):
            return fallback_box, None
    if problem:
        return None, (
            f"permissions.sandbox is 'bwrap' but bubblewrap cannot create its namespaces here"
            f" ({problem}); {fallback}"
        )
    return sandbox, None


def _euid() -> int:
    geteuid = getattr(os, "geteuid", None)  # absent on Windows, where bwrap never runs
    return int(geteuid()) if geteuid is not None else -1


def _overlapping(paths: Sequence[Path], project: Path) -> tuple[Path, ...]:
    """The directories among `paths` inside the project or holding it, created when
    missing (a command must not be able to create them with its own contents)."""
    found: list[Path] = []
    for path in paths:
        real = Path(os.path.realpath(path))
        if real != project and project not in real.parents and real not in project.parents:
            continue
        try:
            real.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue  # bwrap refuses a missing source: the probe then reports it
        found.append(real)
    return tuple(found)


@functools.lru_cache(maxsize=8)
def _probe(argv: tuple[str, ...]) -> str:
    """Run `true` in the sandbox once per set of flags; "" when it worked, else why not."""
    try:
        done = subprocess.run(
            [*argv, "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc) or type(exc).__name__
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    return ""
