"""Skills: markdown instructions the model loads on demand.

A skill is `<name>/SKILL.md` or `<name>.md` under the project's `.rift/skills/` (winning
name collisions) or `~/.config/rift/skills/`. Only `- name: description` lines go into the
system prompt; the body is loaded by the `skill` tool or a `/skill:<name> [task]` prompt.
Plugin commands (extend/plugins.py) are skills too, with a `template`.

Skill files are read into the prompt without a tool call, so each must resolve inside the
directory it was found in and, for the project's, pass the Read rules: a symlinked
`leak.md -> ~/.ssh/id_rsa` is skipped, never read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from msgspec import Struct

from rift.fs.paths import READ_LIMIT, contained_file

Readable = Callable[[Path], bool]
"""The Read rules' answer for a path; project files must pass it."""

BODY_CAP = 12_000
DESCRIPTION_CAP = 120
DEFAULT_TASK = "Apply this skill to the current project now."


class Skill(Struct, frozen=True):
    name: str
    description: str
    body: str
    source: Path | None = None
    template: str | None = None
    """A plugin command's prompt template; `{args}` is replaced by the invocation's task."""

    def expand(self, task: str) -> str:
        """The prompt a `/skill:<name> [task]` invocation turns into."""
        if self.template is not None:
            return self.template.replace("{args}", task.strip())
        return (
            "Follow this skill's instructions.\n\n"
            f"--- SKILL: {self.name} ---\n{self.body}\n--- END SKILL ---\n\n"
            f"Task: {task.strip() or DEFAULT_TASK}"
        )


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """`key: value` lines between leading `---` lines (keys lowercased), and the body."""
    meta: dict[str, str] = {}
    body = text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            for line in text[3:end].splitlines():
                key, sep, value = line.partition(":")
                if sep:
                    meta[key.strip().lower()] = value.strip().strip("\"'")
            body = text[end + 4 :].lstrip("\n")
    return meta, body


def parse_skill(text: str, fallback_name: str, source: Path | None = None) -> Skill:
    """Front matter `name:`/`description:` between `---` lines, then the body."""
    meta, body = split_front_matter(text)
    name = meta.get("name") or fallback_name
    description = meta.get("description") or _first_line(body) or "(no description)"
    if len(body) > BODY_CAP:
        body = body[:BODY_CAP] + f"\n[skill truncated at {BODY_CAP} characters]"
    return Skill(name=name, description=description[:DESCRIPTION_CAP], body=body, source=source)


def _first_line(body: str) -> str:
    lines = (line.strip() for line in body.splitlines())
    return next((line[:DESCRIPTION_CAP] for line in lines if line and line[0] != "#"), "")


def read_contained(path: Path, root: Path, readable: Readable | None) -> str | None:
    """The text of `path` if it resolves to a file inside `root` that `readable` allows."""
    real = contained_file(path, root)
    if real is None or (readable is not None and not readable(real)):
        return None
    try:
        with real.open("rb") as handle:
            return handle.read(READ_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None


def _scan(directory: Path, root: Path, readable: Readable | None) -> Iterable[Skill]:
    if not directory.is_dir():
        return
    for entry in sorted(directory.iterdir()):
        if entry.is_dir() and (entry / "SKILL.md").is_file():
            path, stem = entry / "SKILL.md", entry.name
        elif entry.is_file() and entry.suffix == ".md":
            path, stem = entry, entry.stem
        else:
            continue
        text = read_contained(path, root, readable)
        if text is not None:
            yield parse_skill(text, stem, path)


def discover_skills(
    project_dir: Path, user_config_dir: Path, readable: Readable | None = None
) -> dict[str, Skill]:
    """All skills by name, sorted; project skills win collisions. `readable` (the Read rules)
    filters the project's skills; the user's own need only stay inside their config dir."""
    user = _scan(user_config_dir / "skills", user_config_dir, None)
    project = _scan(project_dir / ".rift" / "skills", project_dir, readable)
    return dict(sorted({s.name: s for s in (*user, *project)}.items()))
