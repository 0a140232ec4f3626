"""`rift update`: say how this copy of rift was installed and print the command that
updates it. It runs nothing: an installer picked wrongly (pip into a pipx venv, a
system Python's site-packages) does more harm than a line the user copies.

The install is told apart by the distribution's `direct_url.json` (PEP 610) and
`INSTALLER`, the markers pipx and `uv tool` leave in `sys.prefix`, and where `rift`
itself is imported from.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

DIST_NAMES = ("rift-agent", "rift")
"""The registry name, newest first: the old `rift` is someone else's on PyPI."""
_ENTRY = "rift.cli:entry"


def installed_distribution(paths: list[str] | None = None) -> metadata.Distribution | None:
    """This program's distribution under any of its names, or None when rift runs from a
    source tree. A distribution called `rift` that is not this program (PyPI's `rift` is
    another project) does not count: it must declare the `rift` console script. `paths`:
    where to look (default `sys.path`)."""
    for name in DIST_NAMES:
        found = metadata.distributions(name=name, path=paths or sys.path)
        for dist in found:
            if any(e.value == _ENTRY for e in dist.entry_points if e.group == "console_scripts"):
                return dist
    return None


class Facts(Struct, frozen=True):
    """What the detection reads, gathered from `sys` by `facts_here` (tests build their own)."""

    dist: metadata.Distribution | None
    prefix: Path
    """`sys.prefix`: the environment's root."""
    base_prefix: Path
    python: Path
    """`sys.executable`: the interpreter whose pip would update this environment."""
    package_dir: Path
    """Where `rift` is imported from."""


class Install(Struct, frozen=True):
    """How this copy was installed and what updates it."""

    how: str
    """pipx, uv tool, venv, editable, source, user, system."""
    where: str
    commands: tuple[str, ...]
    note: str = ""

    def render(self, version: str) -> str:
        lines = [f"rift {version}: {self.how} install ({self.where})"]
        if self.note:
            lines.append(self.note)
        lines.append("to update it, run:" if self.commands else "no update command known")
        lines += [f"  {command}" for command in self.commands]
        return "\n".join(lines)


def facts_here() -> Facts:
    """The running interpreter's facts."""
    import rift

    return Facts(
        dist=installed_distribution(),
        prefix=Path(sys.prefix),
        base_prefix=Path(sys.base_prefix),
        python=Path(sys.executable),
        package_dir=Path(rift.__file__).resolve().parent,
    )


def _direct_url(dist: metadata.Distribution) -> dict[str, Any]:
    try:
        data = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _source_tree(package_dir: Path) -> Path | None:
    """The checkout rift runs from: `src/rift` under a folder with pyproject.toml."""
    root = package_dir.parent.parent
    if package_dir.parent.name == "src" and (root / "pyproject.toml").is_file():
        return root
    return None


def _spec(dist: metadata.Distribution, direct: dict[str, Any]) -> tuple[str, Path | None]:
    """What pip would take to get this install again, and its local directory if any."""
    url = str(direct.get("url") or "")
    vcs = direct.get("vcs_info")
    if isinstance(vcs, dict):
        revision = vcs.get("requested_revision")
        return f"git+{url}" + (f"@{revision}" if revision else ""), None
    if url.startswith("file://"):
        from urllib.parse import unquote, urlparse

        local = Path(unquote(urlparse(url).path))
        return str(local), local
    return (url or dist.metadata["Name"]), None


def _pull(local: Path | None) -> tuple[str, ...]:
    """`git pull` first when the install came from a clone."""
    if local is not None and (local / ".git").exists():
        return (f"git -C {shlex.quote(str(local))} pull",)
    return ()


def detect(facts: Facts) -> Install:
    """How the copy described by `facts` was installed, and its update commands; a note
    when this run imports rift from a source tree other than the install's."""
    tree = _source_tree(facts.package_dir)
    if facts.dist is None:
        if tree is None:
            return Install("unknown", str(facts.package_dir), ())
        return Install("source", f"a source tree at {tree}, not installed", _pull(tree))
    found = _installed(facts, facts.dist)
    if tree is not None and f"the clone at {tree}" != found.where:
        note = f"note: this run imports rift from {facts.package_dir}, not from that install"
        return replace(found, note="\n".join(filter(None, (found.note, note))))
    return found


def _installed(facts: Facts, dist: metadata.Distribution) -> Install:
    direct = _direct_url(dist)
    installer = (dist.read_text("INSTALLER") or "").strip()
    python = shlex.quote(str(facts.python))
    dir_info = direct.get("dir_info")
    spec, local = _spec(dist, direct)
    quoted = shlex.quote(spec)
    if isinstance(dir_info, dict) and dir_info.get("editable") and local is not None:
        reinstall = (
            f"uv pip install --python {python} -e {quoted}"
            if installer == "uv"
            else f"{python} -m pip install -e {quoted}"
        )
        note = "the pull is the update; reinstall only when the dependencies changed"
        return Install("editable", f"the clone at {local}", (*_pull(local), reinstall), note)
    name = dist.metadata["Name"]
    if (facts.prefix / "pipx_metadata.json").is_file():
        command = f"pipx install --force {quoted}" if local else f"pipx upgrade {facts.prefix.name}"
        return Install("pipx", f"pipx venv {facts.prefix}", (*_pull(local), command))
    if (facts.prefix / "uv-receipt.toml").is_file():
        tool = facts.prefix.name
        command = (
            f"uv tool install --force --reinstall {quoted}" if local else f"uv tool upgrade {tool}"
        )
        return Install("uv tool", f"uv tool environment {facts.prefix}", (*_pull(local), command))
    target = quoted if local or direct else shlex.quote(name)
    if installer == "uv":
        command = f"uv pip install --python {python} --upgrade {target}"
    else:
        command = f"{python} -m pip install --upgrade {target}"
    if facts.prefix != facts.base_prefix:
        return Install("venv", f"the virtual environment {facts.prefix}", (*_pull(local), command))
    import site  # only here: the user's site-packages tells --user installs apart

    location = Path(str(dist.locate_file("")))
    if location.is_relative_to(Path(site.getuserbase())):
        return Install(
            "user", f"user site-packages {location}", (*_pull(local), command + " --user")
        )
    note = "a system Python: if your package manager installed it, update it there instead"
    return Install("system", f"site-packages {location}", (*_pull(local), command), note)


def main(argv: list[str]) -> int:
    """`rift update [--help]`: print how this install was made and how to update it."""
    if argv and argv[0] in ("-h", "--help"):
        print("usage: rift update\n\nSay how this copy of rift was installed and print the")
        print("command that updates it (nothing is run).")
        return 0
    if argv:
        print(f"rift update: unexpected argument '{argv[0]}' (it takes none)", file=sys.stderr)
        return 2
    from rift import __version__

    print(detect(facts_here()).render(__version__))
    return 0
