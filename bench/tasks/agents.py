"""The agents the side-by-side benchmarks compare, each run once in a prepared repository.

    rift-embedded  rift -m embedded (the model in-process, no server)
    rift-server    rift --host <llama-server>/v1, llama.cpp's own C++ server on the same GGUF
    aider          aider 0.86.2, `--edit-format whole`, against that same server

Why one module: the Exercism benchmark and the task tiers must run every
agent the same way (same flags, same throwaway HOME, same timeouts, same
counting), or their tables would not compare. Model requests and tokens of the
two server agents are counted off the wire by proxy.py; rift-embedded has no
wire, so its counts are rift's own `--output-format json` stats. A second try
continues the first one's conversation (`rift -c`, aider's restored chat
history), as aider's benchmark keeps one chat for both tries.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_tasks
from llama_server import ALIAS, N_CTX, die_with_parent, kill_group
from proxy import RecordingProxy

AGENTS = ("rift-embedded", "rift-server", "aider")
TEMPERATURE = 0.2  # rift's DEFAULT_TEMPERATURE (rift/config/records.py)
MAX_OUTPUT = 2048  # rift's embedded MAX_OUTPUT_TOKENS (models/embedded.py)


def needs_server(agent: str) -> bool:
    return agent != "rift-embedded"


@dataclass
class Setup:
    """What every run of an agent shares: commands, model, server, limits."""

    rift: list[str]
    gguf: Path
    work: Path  # the run's private folder (model cache link, aider settings)
    timeout: float
    aider: str = "/tmp/aider-venv/bin/aider"
    server_url: str = ""  # OpenAI base URL of the running server, "" while none runs
    model: str = ALIAS
    aider_flags: list[str] = field(default_factory=list)

    def embedded_cache(self) -> Path:
        """An XDG cache whose rift/models/ holds a link to --gguf, so rift-embedded
        loads exactly the file the server serves (rift only checks its size)."""
        cache = self.work / "xdg-cache"
        target = cache / "rift" / "models" / self.gguf.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(self.gguf.resolve())
        return cache


@dataclass
class Run:
    """One try by one agent: how it ended and what it cost."""

    rc: int
    timed_out: bool
    secs: float
    prompt_tokens: int = 0
    output_tokens: int = 0
    llm_calls: int = 0
    timing: dict[str, int] | None = None
    """Where rift's time went (its JSON stats' TIMING keys); None for aider."""

    def totals(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "llm_calls": self.llm_calls,
        }


def run_group(
    cmd: list[str], cwd: Path, env: dict[str, str], timeout: float, log: Path
) -> tuple[int, bool]:
    """(exit status, timed out): stdout to `log`.out, stderr to `log`.err; on timeout the
    whole process group is killed, and the child dies with the harness in any case."""
    with log.with_suffix(".out").open("ab") as out, log.with_suffix(".err").open("ab") as err:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            kill_group(proc, grace=2)
            return proc.returncode, True
        except BaseException:
            kill_group(proc, grace=2)
            raise


def aider_settings(folder: Path) -> list[str]:
    """aider's flags for our model: rift's temperature and output cap, the context size."""
    settings = folder / "model-settings.yml"
    settings.write_text(
        f"- name: openai/{ALIAS}\n"
        "  edit_format: whole\n"
        f"  use_temperature: {TEMPERATURE}\n"
        "  extra_params:\n"
        f"    max_tokens: {MAX_OUTPUT}\n",
        encoding="utf-8",
    )
    metadata = folder / "model-metadata.json"
    entry = {
        "max_input_tokens": N_CTX,
        "max_output_tokens": MAX_OUTPUT,
        "max_tokens": MAX_OUTPUT,
        "input_cost_per_token": 0,
        "output_cost_per_token": 0,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    metadata.write_text(json.dumps({f"openai/{ALIAS}": entry}), encoding="utf-8")
    return ["--model-settings-file", str(settings), "--model-metadata-file", str(metadata)]


def rift_stats(out: Path) -> dict[str, int]:
    """Counts from the last JSON result rift printed to `out` (rift-embedded has no wire)."""
    try:
        stats = json.loads(out.read_text(encoding="utf-8").strip().splitlines()[-1])["stats"]
    except (OSError, IndexError, ValueError, KeyError, TypeError):
        return {"prompt_tokens": 0, "output_tokens": 0, "llm_calls": 0}
    return {
        "prompt_tokens": int(stats.get("billed_prompt_tokens", 0)),
        "output_tokens": int(stats.get("output_tokens", 0)),
        "llm_calls": int(stats.get("iterations", 0)),
    }


TIMING = (
    "requests",
    "prefill_tokens",
    "prefill_ms",
    "decode_tokens",
    "decode_ms",
    "cached_tokens",
    "tool_ms",
)
"""rift's per-turn figures of where the time went (`-p --output-format json` stats)."""


def rift_timing(out: Path) -> dict[str, int] | None:
    """TIMING from the last JSON result rift printed to `out`; None when there is none."""
    try:
        stats = json.loads(out.read_text(encoding="utf-8").strip().splitlines()[-1])["stats"]
        return {key: int(stats.get(key, 0)) for key in TIMING}
    except (OSError, IndexError, ValueError, KeyError, TypeError, AttributeError):
        return None


def run(
    agent: str,
    prompt: str,
    repo: Path,
    home: Path,
    setup: Setup,
    files: list[str],
    *,
    again: bool = False,
) -> Run:
    """One try of `agent` on `prompt` in `repo`. `home` is this (task, agent)'s throwaway
    HOME, kept between its tries; `files` are the files the task is about (aider adds them
    to its chat, as its benchmark does); `again` continues the previous try's conversation."""
    home.mkdir(parents=True, exist_ok=True)
    tries = len(list(home.glob("try*.out")))
    log = home / f"try{tries + 1}"
    if agent == "rift-embedded":
        env = dict(run_tasks.rift_env(home, False), XDG_CACHE_HOME=str(setup.embedded_cache()))
        cmd = [*setup.rift, "-p", prompt, "-m", "embedded", "--output-format", "json"]
        started = time.perf_counter()
        rc, timed_out = run_group([*cmd, *(["-c"] if again else [])], repo, env, setup.timeout, log)
        secs = time.perf_counter() - started
        out = log.with_suffix(".out")
        return Run(rc, timed_out, secs, **rift_stats(out), timing=rift_timing(out))
    if not setup.server_url:
        raise RuntimeError(f"{agent} needs a running model server")
    with RecordingProxy(setup.server_url, timeout=setup.timeout) as proxy:
        if agent == "rift-server":
            env = run_tasks.rift_env(home, False)
            cmd = [*setup.rift, "-p", prompt, "--host", proxy.client_url, "--model", setup.model]
            cmd += ["--num-ctx", str(N_CTX), "--output-format", "json", *(["-c"] if again else [])]
        elif agent == "aider":
            env = aider_env(home)
            cmd = aider_command(setup, proxy.client_url, prompt, home, files, again)
        else:
            raise ValueError(f"unknown agent {agent!r}")
        started = time.perf_counter()
        rc, timed_out = run_group(cmd, repo, env, setup.timeout, log)
        secs = time.perf_counter() - started
        totals = proxy.totals()
    if agent == "aider":
        forget_aider_files(repo)
        return Run(rc, timed_out, secs, **totals)
    return Run(rc, timed_out, secs, **totals, timing=rift_timing(log.with_suffix(".out")))


def aider_env(home: Path) -> dict[str, str]:
    """aider's environment: a throwaway HOME, and litellm's bundled price list (no fetch)."""
    env = dict(os.environ, HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
    env.pop("PYTHONPATH", None)  # rift's src has nothing for aider's venv
    return env


def aider_command(
    setup: Setup, url: str, prompt: str, home: Path, files: list[str], again: bool
) -> list[str]:
    """aider headless, one message, `whole` format, no git, no repo map, no network extras."""
    return [
        setup.aider,
        *("--model", f"openai/{setup.model}", "--openai-api-base", url),
        *("--openai-api-key", "x", "--edit-format", "whole", *setup.aider_flags),
        *("--yes-always", "--no-git", "--no-stream", "--map-tokens", "0"),
        *("--chat-history-file", str(home / "chat.md")),
        *("--input-history-file", str(home / "input.history")),
        "--restore-chat-history" if again else "--no-restore-chat-history",
        *("--analytics-disable", "--no-check-update", "--no-show-model-warnings"),
        *("--no-gitignore", "--no-pretty", "--no-fancy-input", "--no-show-release-notes"),
        *("--no-detect-urls", "--message", prompt, *files),
    ]


def forget_aider_files(repo: Path) -> None:
    """aider's bookkeeping (`.aider*`) out of the repository, as rift's `.rift` is ignored."""
    for own in repo.glob(".aider*"):
        if own.is_dir():
            shutil.rmtree(own, ignore_errors=True)
        else:
            own.unlink(missing_ok=True)


def describe(agent: str, setup: Setup, server: str) -> str:
    """One line per agent for a results header."""
    if agent == "rift-embedded":
        return f"rift-embedded: rift -m embedded, the GGUF in-process ({embedded_runtime()})"
    if agent == "rift-server":
        return f"rift-server: rift --host {server} --num-ctx {N_CTX}"
    return f"aider: {aider_version(setup.aider)} --edit-format whole -> {server}"


def embedded_runtime() -> str:
    """The llama.cpp binding rift-embedded runs on here, with its version."""
    from importlib import metadata

    for name in ("cyllama", "llama-cpp-python"):
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return "no runtime found"


def aider_version(aider: str) -> str:
    try:
        run = subprocess.run([aider, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return "aider (version unknown)"
    return run.stdout.strip() or "aider (version unknown)"


def parse_agents(text: str) -> list[str]:
    wanted = [a.strip() for a in text.split(",") if a.strip()]
    unknown = [a for a in wanted if a not in AGENTS]
    if unknown or not wanted:
        raise SystemExit(f"bench: unknown agent(s) {unknown}; choose from {', '.join(AGENTS)}")
    return wanted


def orders(agents: list[str], index: int) -> list[str]:
    """The agents for task number `index`: as given, reversed on every other task, so the
    server agents stay adjacent (one server start serves both) and none always goes first."""
    return list(agents) if index % 2 == 0 else list(reversed(agents))


def git_commit(repo: Path) -> str:
    """The short commit of `repo`, with "+dirty" when its tracked files differ from it."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=repo,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (head or "unknown") + ("+dirty" if dirty else "")


def hardware() -> str:
    """CPU model and count, memory, and the GPU when nvidia-smi names one."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kb / 1024**2:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    gpu = ""
    if shutil.which("nvidia-smi"):
        run = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
        )
        gpu = ", GPU " + run.stdout.strip().replace("\n", " + ") if run.returncode == 0 else ""
    return f"{os.cpu_count()} x {cpu}{memory}{gpu}"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def as_row(**fields: Any) -> dict[str, Any]:
    """A JSON line's fields with floats rounded for reading."""
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in fields.items()}
