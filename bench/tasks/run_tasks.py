"""Score rift on small real coding tasks against a real model server or the embedded model.

    python bench/tasks/run_tasks.py --host URL --model M [--tasks a,b] [--timeout 600]
                                    [--out results.jsonl]
    python bench/tasks/run_tasks.py --embedded [--tier tiny]   # in-process, no server
    python bench/tasks/run_tasks.py --embedded --tier tiny --lang de   # the German prompts
    python bench/tasks/run_tasks.py --fake            # prove the harness, no model needed

Two tiers: `full` (bench/tasks/fixtures/, repairs and small features) and
`tiny` (bench/tasks/tiny/fixtures/, single-file everyday edits sized for the
embedded model; each verify.sh also checks that no other file was touched).
Every tiny task is also written in German, Spanish and Chinese
(prompt.de.txt, prompt.es.txt, prompt.zh.txt beside prompt.txt); `--lang`
picks one, so the same check scores the same task asked another way.

Each task is a folder in bench/tasks/fixtures/<name>/: the project files,
`prompt.txt` (the task) and `verify.sh` (fails before the fix, passes after).
For every task the runner copies the project files (not prompt.txt or
verify.sh, so the model cannot read or edit the check) into a fresh temp git
repository, runs `rift -p PROMPT` headless with a timeout, then runs verify.sh
in that repository. Token counts come from the wire: rift talks to a recording
reverse proxy (proxy.py) that forwards to --host and reads the counts off
each reply. One JSON line per task goes to stdout (and to --out):

    {"task", "ok", "damaged", "secs", "prompt_tokens", "output_tokens", "llm_calls", "rc",
     "timed_out"}

`damaged` counts the files of the repository that parsed before the run and do
not now (Python, JSON, TOML), were deleted, or were created unparseable. With
--embedded there is no wire to record: the counts come from rift's own
`--output-format json` stats, and the assembled model is shared through the
real cache directory (XDG_CACHE_HOME) instead of a copy per task.

rift runs with a throwaway HOME/XDG tree (no user config, no sessions left
behind) unless --user-config is given. `--fake` runs one task against the
scripted fake model server with a known solution (read, edit, "done").
"""

from __future__ import annotations

import argparse
import atexit
import functools
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURES = HERE / "fixtures"
SOLUTIONS = HERE / "solutions"
TIERS = {"full": HERE, "tiny": HERE / "tiny"}
LANGS = ("en", "de", "es", "zh")
"""The languages a tiny-tier task is written in: prompt.txt (en) and prompt.<lang>.txt."""
TASK_FILES = frozenset({"verify.sh", "prompt.txt", *(f"prompt.{lang}.txt" for lang in LANGS[1:])})
VERIFY_TIMEOUT = 120

sys.path.insert(0, str(HERE))
from proxy import RecordingProxy  # noqa: E402

FAKE_TASK = "off_by_one_chunks"
FAKE_MODEL = "fake-model"


def fake_script() -> dict[str, Any]:
    """The scripted "model" for FAKE_TASK: read the file, fix the range, say done.

    Output token counts are scripted; prompt counts are the fake server's (body bytes / 4).
    """
    return {
        "turns": [
            {
                "tool_calls": [{"name": "read", "arguments": {"path": "chunking.py"}}],
                "usage": {"output_tokens": 24},
            },
            {
                "tool_calls": [
                    {
                        "name": "edit",
                        "arguments": {
                            "path": "chunking.py",
                            "old_string": "range(0, len(seq) - size, size)",
                            "new_string": "range(0, len(seq), size)",
                        },
                    }
                ],
                "usage": {"output_tokens": 48},
            },
            {"content": "done", "usage": {"output_tokens": 1}},
        ]
    }


# ------------------------------------------------------------------ fixtures


def fixtures(tier: str = "full") -> Path:
    return TIERS[tier] / "fixtures"


def solutions(tier: str = "full") -> Path:
    return TIERS[tier] / "solutions"


def all_tasks(tier: str = "full") -> list[str]:
    return sorted(p.name for p in fixtures(tier).iterdir() if (p / "verify.sh").is_file())


def prompt_file(name: str, tier: str = "full", lang: str = "en") -> Path:
    """The task's prompt in `lang`: prompt.txt for English, prompt.<lang>.txt otherwise
    (the same task translated, so a decision keyed on English words shows up as a gap)."""
    return fixtures(tier) / name / ("prompt.txt" if lang == "en" else f"prompt.{lang}.txt")


def read_prompt(name: str, tier: str = "full", lang: str = "en") -> str:
    """The task as rift is given it; a missing translation is a one-line error."""
    path = prompt_file(name, tier, lang)
    if not path.is_file():
        raise SystemExit(f"run_tasks: {name} has no {lang} prompt ({path.name})")
    return path.read_text(encoding="utf-8").strip()


def copy_fixture(
    name: str, dest: Path, *, overlay: Path | None = None, tier: str = "full", git: bool = False
) -> Path:
    """The task's project files (without prompt.txt and verify.sh) in `dest`; with `git`,
    committed as the fixture before the overlay (a reference solution) is laid over."""
    source = fixtures(tier) / name
    shutil.copytree(
        source,
        dest,
        ignore=lambda d, names: [
            n for n in names if (Path(d) == source and n in TASK_FILES) or n == "__pycache__"
        ],
    )
    if git:
        git_init(dest)
    if overlay is not None and overlay.is_dir():
        shutil.copytree(overlay, dest, dirs_exist_ok=True)
    return dest


def git_init(repo: Path) -> None:
    """A git repository with the fixture as its one commit (rift's undo and diffs expect one)."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@localhost",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@localhost",
    )
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
            cwd=repo,
            env=env,
            check=True,
            capture_output=True,
        )


@functools.cache
def _python3_dir() -> str:
    """A folder whose `python3` is this interpreter, put first on verify.sh's PATH.

    Scoring then does not depend on which python3 the shell finds (a version
    manager's shim can cost a few hundred ms a call), and the fixtures need
    nothing but the standard library.
    """
    folder = Path(tempfile.mkdtemp(prefix="rift-verify-bin-"))
    (folder / "python3").symlink_to(sys.executable)
    atexit.register(shutil.rmtree, folder, True)
    return str(folder)


def verify(name: str, repo: Path, tier: str = "full") -> tuple[bool, str]:
    """Run the task's verify.sh in `repo`; (passed, its output tail)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PATH"] = _python3_dir() + os.pathsep + env.get("PATH", "")
    try:
        run = subprocess.run(
            ["bash", str(fixtures(tier) / name / "verify.sh")],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=VERIFY_TIMEOUT,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return False, "verify.sh timed out"
    return run.returncode == 0, (run.stdout + run.stderr)[-2000:]


def _parse_error(path: Path, text: str) -> bool:
    try:
        if path.suffix == ".py":
            compile(text, str(path), "exec", dont_inherit=True)
        elif path.suffix == ".json":
            json.loads(text)
        elif path.suffix == ".toml":
            tomllib.loads(text)
    except (SyntaxError, ValueError):
        return True
    return False


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)


def result_row(
    name: str,
    ok: bool,
    damaged: list[str],
    secs: float,
    totals: dict[str, int],
    rc: int,
    timed_out: bool,
) -> dict[str, Any]:
    """One task's JSON line, the same for every harness that scores a tool on these tasks."""
    return {
        "task": name,
        "ok": ok,
        "damaged": len(damaged),
        "secs": round(secs, 2),
        **totals,
        "rc": rc,
        "timed_out": timed_out,
    }


def damaged_files(repo: Path) -> list[str]:
    """Files that parsed in the fixture's commit and do not now, were deleted, or were
    created unparseable (see the module docstring)."""
    tracked = set(_git(repo, "ls-files").stdout.splitlines())
    listed = _git(repo, "ls-files", "--cached", "--others", "--exclude-standard").stdout
    damaged: list[str] = []
    for name in sorted(set(listed.splitlines())):
        path = repo / name
        if not path.exists():
            damaged.append(name)
            continue
        if not _parse_error(path, path.read_text(encoding="utf-8", errors="replace")):
            continue
        before = _git(repo, "show", f"HEAD:{name}").stdout if name in tracked else None
        if before is None or not _parse_error(path, before):
            damaged.append(name)
    return damaged


# ----------------------------------------------------------------- running


def rift_command(custom: str | None) -> list[str]:
    """How to start rift: --rift, else this interpreter if it has rift, else the repo venv."""
    if custom:
        return custom.split()
    probe = subprocess.run([sys.executable, "-c", "import rift.cli"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "rift"]
    venv = REPO / ".venv" / "bin" / "python"
    if venv.exists():
        return [str(venv), "-m", "rift"]
    found = shutil.which("rift")
    if found:
        return [found]
    raise SystemExit("run_tasks: cannot find rift; pass --rift 'CMD'")


def rift_env(home: Path, user_config: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_")}
    if user_config:
        return env
    for sub in (".config", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    return env


def run_rift(cmd: list[str], repo: Path, env: dict[str, str], timeout: float) -> tuple[int, bool]:
    """(exit status, timed out); the whole process group is killed on timeout.

    stderr goes to rift.log, stdout to rift.out (the JSON result with --output-format json).
    """
    log = repo.parent / "rift.log"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        return _run_rift(cmd, repo, env, timeout, log)
    finally:  # CPU seconds of rift (and its children): comparable on a machine others share
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        LAST_CPU[0] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


LAST_CPU = [0.0]
"""CPU seconds of the last rift run (set by run_rift, reported as `cpu_s`)."""


def _run_rift(
    cmd: list[str], repo: Path, env: dict[str, str], timeout: float, log: Path
) -> tuple[int, bool]:
    with log.open("wb") as err, (repo.parent / "rift.out").open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=repo,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return proc.returncode, True


def embedded_totals(out: Path) -> dict[str, int]:
    """Token counts from rift's own JSON result (there is no wire to record in-process)."""
    try:
        stats = json.loads(out.read_text(encoding="utf-8").strip().splitlines()[-1])["stats"]
    except (OSError, IndexError, ValueError, KeyError, TypeError):
        return {"prompt_tokens": 0, "output_tokens": 0, "llm_calls": 0}
    return {
        "prompt_tokens": stats.get("billed_prompt_tokens", 0),
        "output_tokens": stats.get("output_tokens", 0),
        "llm_calls": stats.get("iterations", 0),
    }


def run_embedded(
    prompt: str, args: argparse.Namespace, rift: list[str], repo: Path, env: dict[str, str]
) -> tuple[int, bool, float, dict[str, int]]:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    env = dict(env, XDG_CACHE_HOME=cache)  # one assembled model for every task
    cmd = [*rift, "-p", prompt, "-m", args.embedded, "--output-format", "json"]
    cmd += args.rift_arg or []
    started = time.perf_counter()
    rc, timed_out = run_rift(cmd, repo, env, args.timeout)
    secs = time.perf_counter() - started
    return rc, timed_out, secs, embedded_totals(repo.parent / "rift.out")


def run_task(name: str, args: argparse.Namespace, rift: list[str], upstream: str) -> dict[str, Any]:
    prompt = read_prompt(name, args.tier, args.lang)
    work = Path(tempfile.mkdtemp(prefix=f"rift-task-{name}-"))
    try:
        repo = copy_fixture(name, work / "repo", tier=args.tier, git=True)
        env = rift_env(work / "home", args.user_config)
        if args.embedded:
            rc, timed_out, secs, totals = run_embedded(prompt, args, rift, repo, env)
        else:
            with RecordingProxy(upstream, timeout=args.timeout) as proxy:
                cmd = [*rift, "-p", prompt, "--host", proxy.client_url, "--model", args.model]
                cmd += args.rift_arg or []
                started = time.perf_counter()
                rc, timed_out = run_rift(cmd, repo, env, args.timeout)
                secs = time.perf_counter() - started
                totals = proxy.totals()
        ok, output = verify(name, repo, args.tier)
        damaged = damaged_files(repo)
        if args.verbose:
            log = (work / "rift.log").read_text(encoding="utf-8", errors="replace")
            print(f"--- {name}: rift output ---\n{log[-4000:]}", file=sys.stderr)
            print(f"--- {name}: verify ---\n{output}", file=sys.stderr)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return {
        **result_row(name, ok, damaged, secs, totals, rc, timed_out),
        "cpu_s": round(LAST_CPU[0], 2),
        "lang": args.lang,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Run rift on the task suite and score it.")
    parser.add_argument(
        "--host", help="model server URL (a URL ending in /v1 is OpenAI-compatible)"
    )
    parser.add_argument("--model", help="model name")
    parser.add_argument("--tasks", help="comma-separated task names (default: all)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per task")
    parser.add_argument("--out", type=Path, help="append the JSON lines to this file too")
    parser.add_argument("--fake", action="store_true", help=f"fake server, scripted {FAKE_TASK}")
    parser.add_argument(
        "--embedded",
        nargs="?",
        const="embedded",
        help="run the embedded model in-process (optionally a name: embedded/qwen2.5-coder-0.5b)",
    )
    parser.add_argument("--tier", choices=sorted(TIERS), default="full", help="task tier")
    parser.add_argument("--lang", choices=LANGS, default="en", help="the prompt's language")
    parser.add_argument("--rift", help="command that starts rift (default: python -m rift)")
    parser.add_argument("--rift-arg", action="append", help="extra rift argument (repeatable)")
    parser.add_argument("--user-config", action="store_true", help="use your HOME and config")
    parser.add_argument("--keep", action="store_true", help="keep the temp repositories")
    parser.add_argument("--verbose", action="store_true", help="print rift's and verify's output")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    args = parser.parse_args(argv)
    if not (args.fake or args.list or args.embedded) and not (args.host and args.model):
        parser.error("--host and --model are required (or use --embedded or --fake)")
    return args


def select_tasks(args: argparse.Namespace) -> list[str]:
    known = all_tasks(args.tier)
    if not args.tasks:
        wanted = [FAKE_TASK] if args.fake else known
    else:
        wanted = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in wanted if t not in known]
    if unknown:
        raise SystemExit(f"run_tasks: unknown task(s): {', '.join(unknown)}")
    if args.fake and wanted != [FAKE_TASK]:
        raise SystemExit(f"run_tasks: --fake only has a scripted solution for {FAKE_TASK}")
    untranslated = [t for t in wanted if not prompt_file(t, args.tier, args.lang).is_file()]
    if untranslated:
        raise SystemExit(
            f"run_tasks: no {args.lang} prompt for {', '.join(untranslated)}"
            " (translations exist for the tiny tier)"
        )
    return wanted


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        print("\n".join(all_tasks(args.tier)))
        return 0
    tasks = select_tasks(args)
    rift = rift_command(args.rift)
    fake = None
    if args.fake:
        sys.path.insert(0, str(REPO / "src"))
        sys.path.append(str(REPO / "tests"))  # the fake model server: tests/fakes/
        from fakes.fake_server import FakeModelServer

        args.model = FAKE_MODEL
        fake = FakeModelServer(fake_script()).start()
        upstream = fake.url
    else:
        upstream = args.host or ""
    results = []
    try:
        for name in tasks:
            result = run_task(name, args, rift, upstream)
            results.append(result)
            line = json.dumps(result)
            print(line, flush=True)
            if args.out:
                with args.out.open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")
    finally:
        if fake is not None:
            fake.stop()
    passed = sum(r["ok"] for r in results)
    tokens = sum(r["prompt_tokens"] + r["output_tokens"] for r in results)
    median = statistics.median(r["secs"] for r in results) if results else 0.0
    print(
        f"{passed}/{len(results)} tasks passed; {sum(r['damaged'] for r in results)} files"
        f" damaged; {tokens:,} tokens; {sum(r['secs'] for r in results):.1f} s"
        f" (median {median:.1f} s a task)",
        file=sys.stderr,
    )
    # A low score is a result, not an error; only the --fake self-check must pass.
    return 1 if args.fake and passed != len(results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
