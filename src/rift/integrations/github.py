"""`rift github install`: a GitHub Actions workflow that runs `rift -p` on a comment.

A workflow file, not an app: the model server is the user's own, so GitHub only needs
where it is (`RIFT_HOST`, `RIFT_MODEL` secrets) and a runner that can reach it.

The workflow is written for hostile input: it runs only for comments by the repository's
owner, members and collaborators; the comment reaches the shell through an environment
variable, never interpolated into the script; the job's token may write this repository's
contents and pull requests only; a fork's pull request is refused before its code is
checked out, and checkout keeps the token out of `.git/config` (only the push step sees
it). rift is installed by its own distribution name or its source at a pinned commit,
never `rift`, which on PyPI is an unrelated project.
"""

from __future__ import annotations

from pathlib import Path

from rift import DISTRIBUTION
from rift.fs import safe_fs

WORKFLOW_PATH = Path(".github") / "workflows" / "rift.yml"
TRIGGER = "/rift"

WORKFLOW = """\
# Written by `rift github install`. Comment "/rift <task>" on an issue or pull request;
# rift runs the task headless (`rift -p`) against your own model server and pushes the
# result: to the pull request's branch, or to a new branch with a pull request for an issue.
# Secrets: RIFT_HOST (the model server URL the runner can reach), RIFT_MODEL (optional).
# Variable: RIFT_PIP_SPEC (optional; what `pip install` takes for rift, default
# "__SPEC__"; never plain "rift", which on PyPI is an unrelated project).
name: rift
on:
  issue_comment:
    types: [created]
permissions:
  contents: write
  pull-requests: write
  issues: write
jobs:
  rift:
    if: >-
      startsWith(github.event.comment.body, '__TRIGGER__') &&
      contains(fromJSON('["OWNER", "MEMBER", "COLLABORATOR"]'),
               github.event.comment.author_association)
    runs-on: ${{ vars.RIFT_RUNNER || 'ubuntu-latest' }}
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install rift
        env:
          RIFT_PIP_SPEC: ${{ vars.RIFT_PIP_SPEC || '__SPEC__' }}
        run: python -m pip install "$RIFT_PIP_SPEC"
      - name: Check out the pull request's branch
        if: github.event.issue.pull_request
        env:
          GH_TOKEN: ${{ github.token }}
          NUMBER: ${{ github.event.issue.number }}
        run: |
          fork="$(gh pr view "$NUMBER" --json isCrossRepository -q .isCrossRepository)"
          if [ "$fork" != "false" ]; then
            echo "rift: #$NUMBER is from a fork; rift runs on this repository's branches only"
            exit 1
          fi
          gh pr checkout "$NUMBER"
      - name: Run rift
        id: rift
        env:
          COMMENT: ${{ github.event.comment.body }}
          RIFT_HOST: ${{ secrets.RIFT_HOST }}
          RIFT_MODEL: ${{ secrets.RIFT_MODEL }}
        run: |
          task="${COMMENT#__TRIGGER__}"
          rift -p "$task" > "$RUNNER_TEMP/rift-answer.md" 2> "$RUNNER_TEMP/rift-log.txt" \\
            || echo "failed=1" >> "$GITHUB_OUTPUT"
      - name: Push the changes
        env:
          GH_TOKEN: ${{ github.token }}
          NUMBER: ${{ github.event.issue.number }}
          IS_PR: ${{ github.event.issue.pull_request && 'yes' || '' }}
        run: |
          git config user.name "rift"
          git config user.email "rift@users.noreply.github.com"
          git add -A
          if git diff --cached --quiet; then exit 0; fi
          remote="https://x-access-token:${GH_TOKEN}@github.com/${GITHUB_REPOSITORY}.git"
          if [ -n "$IS_PR" ]; then
            git commit -m "rift: changes for #$NUMBER"
            git push "$remote" "HEAD:$(git branch --show-current)"
          else
            branch="rift/issue-$NUMBER"
            git switch -c "$branch"
            git commit -m "rift: changes for #$NUMBER"
            git push "$remote" "HEAD:refs/heads/$branch"
            gh pr create --fill --head "$branch" --body "For #$NUMBER, by rift."
          fi
      - name: Answer on the thread
        if: always()
        env:
          GH_TOKEN: ${{ github.token }}
          NUMBER: ${{ github.event.issue.number }}
        run: |
          touch "$RUNNER_TEMP/rift-answer.md"
          gh issue comment "$NUMBER" --body-file "$RUNNER_TEMP/rift-answer.md" \\
            || gh issue comment "$NUMBER" --body "rift finished with no answer; see the run's log."
"""


class InstallError(Exception):
    """The workflow could not be written; the message is one line for the user."""


def install_spec() -> str:
    """What the workflow's `pip install` takes: this rift's own source at a pinned
    commit when pip recorded where it came from (PEP 610 `direct_url.json`: a git URL,
    or a clone whose commit is on its GitHub remote), else the distribution name."""
    import importlib.metadata
    import json

    try:
        raw = importlib.metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        info = json.loads(raw or "{}")
    except (importlib.metadata.PackageNotFoundError, json.JSONDecodeError):
        return DISTRIBUTION
    url = info.get("url") if isinstance(info, dict) else None
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    commit = vcs.get("commit_id") if isinstance(vcs, dict) else None
    if isinstance(url, str) and url.startswith("https://") and isinstance(commit, str):
        return f"git+{url}@{commit}"
    if isinstance(url, str) and url.startswith("file://"):
        from urllib.parse import unquote

        return _clone_spec(Path(unquote(url.removeprefix("file://")))) or DISTRIBUTION
    return DISTRIBUTION


def _git(cwd: Path, *args: str) -> str | None:
    """One git answer (stripped stdout) in `cwd`, run through rift's one git door
    (gitcmd.run_git: protective settings, no credentials); None when git fails or is
    missing."""
    import subprocess

    from rift.errors import RiftError
    from rift.fs.gitcmd import run_git

    try:
        done = run_git(cwd, *args, timeout=10)
    except (OSError, subprocess.SubprocessError, RiftError):
        return None
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else None


def _clone_spec(clone: Path) -> str | None:
    """`git+https://github.com/<owner>/<repo>@<commit>` for a clone whose HEAD is on its
    `origin` at GitHub (a commit only local would fail the workflow's install)."""
    origin = _git(clone, "remote", "get-url", "origin") or ""
    if origin.startswith("git@github.com:"):
        origin = "https://github.com/" + origin.removeprefix("git@github.com:")
    head = _git(clone, "rev-parse", "HEAD")
    if not origin.startswith("https://github.com/") or not head:
        return None
    if not _git(clone, "branch", "-r", "--contains", head):
        return None
    return f"git+{origin}@{head}"


def workflow(spec: str) -> str:
    """The workflow text, installing rift with `spec`."""
    return WORKFLOW.replace("__TRIGGER__", TRIGGER).replace("__SPEC__", spec)


def install(project: Path, *, force: bool = False, spec: str | None = None) -> Path:
    """Write the workflow into `project`'s repository; the path written.

    An existing file is kept unless `force`: it may be the user's own edit of an
    earlier install, and a silent overwrite would lose it. A `.github` or
    `.github/workflows` that is a link out of the repository is refused: the file is
    for this repository, and a committed link must not aim the write elsewhere."""
    top = _git(project.resolve(), "rev-parse", "--show-toplevel")  # as git finds it
    if not top:
        raise InstallError("not a git repository; run `rift github install` inside one")
    root = Path(top).resolve()
    target = root / WORKFLOW_PATH
    if target.is_symlink():
        raise InstallError(f"{WORKFLOW_PATH} is a symlink; refusing to write through it")
    real = safe_fs.resolve(target)
    if not real.is_relative_to(root):
        raise InstallError(f"{WORKFLOW_PATH} leads outside the project (to {real}); not written")
    if target.exists() and not force:
        raise InstallError(f"{WORKFLOW_PATH} exists; pass --force to replace it")
    safe_fs.write_atomic(real, workflow(spec or install_spec()).encode("utf-8"))
    real.chmod(0o644)  # a file for the repository, not one of rift's private files
    return target


def main(argv: list[str], cwd: Path) -> int:
    """`rift github install [--force]`: the exit status; messages go to stdout/stderr."""
    import sys

    if not argv or argv[0] != "install" or any(a not in ("--force",) for a in argv[1:]):
        print("usage: rift github install [--force]", file=sys.stderr)
        return 2
    spec = install_spec()
    try:
        path = install(cwd, force="--force" in argv[1:], spec=spec)
    except (InstallError, OSError) as exc:
        print(f"rift: {exc}", file=sys.stderr)
        return 1
    shown = path.relative_to(cwd) if path.is_relative_to(cwd) else path
    print(f"wrote {shown} (installs rift with: pip install {spec})")
    print("next: add the RIFT_HOST secret (and RIFT_MODEL) in the repository's settings;")
    print("  to install rift another way, set the repository variable RIFT_PIP_SPEC")
    print('  (e.g. "git+https://github.com/<owner>/<repo>@<commit>" for a fork of rift);')
    print(f'then comment "{TRIGGER} <task>" on an issue or pull request')
    return 0
