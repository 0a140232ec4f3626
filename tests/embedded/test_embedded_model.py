"""The real embedded model: assembly, a grammar-constrained call, and a whole `rift -p` task.

Figures (assembly time, tokens/s, the task's wall time) are printed; run with
`-s` to see them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rift.core.context.prompt import build_system_prompt
from rift.core.conversation.runtime import SMALL_TOOLSET
from rift.models import embedded, embedded_backends, embedded_prefix, local_weights
from rift.models.base import ChatRequest, ContentDelta, Message, ModelEvent, ToolCall, Usage
from rift.tools import builtin_tools

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.skipif(not local_weights.runtime_installed(), reason=local_weights.RUNTIME_MISSING),
]
MODEL = "qwen2.5-coder-1.5b"
NUM_CTX = 8192
TOOLS = [builtin_tools()[name].schema() for name in SMALL_TOOLSET]
PROJECT = Path("/work/project")
"""One cwd for the in-process tests: the system prompt names it, so they share its KV prefix."""


def chat(model: Any, messages: list[Message]) -> list[ModelEvent]:
    request = ChatRequest(
        model=MODEL, messages=messages, tools=TOOLS, num_ctx=NUM_CTX, temperature=0.0
    )

    async def collect() -> list[ModelEvent]:
        return [event async for event in model.provider.stream_chat(request)]

    return asyncio.run(collect())


def system() -> Message:
    return {"role": "system", "content": build_system_prompt(PROJECT, small_model=True)}


def report(label: str, events: list[ModelEvent], seconds: float) -> Usage:
    usage = next(e for e in events if isinstance(e, Usage))
    rate = usage.output_tokens / usage.eval_duration_s if usage.eval_duration_s else 0.0
    print(
        f"\n[embedded] {label}: {seconds:.1f} s, prompt {usage.prompt_tokens} tok,"
        f" output {usage.output_tokens} tok at {rate:.1f} tok/s"
    )
    return usage


@pytest.mark.timeout(120)
def test_the_assembled_model_matches_the_upstream_hash(embedded_model: Any) -> None:
    spec = local_weights.MODELS[MODEL]
    digest = hashlib.sha256()
    with embedded_model.path.open("rb") as handle:
        while block := handle.read(8 << 20):
            digest.update(block)
    assert embedded_model.path.stat().st_size == spec.size
    assert digest.hexdigest() == spec.sha256
    assert [p.name for p in embedded_model.path.parent.iterdir()] == [spec.filename]
    print(f"\n[embedded] assembled {spec.size} bytes in {embedded_model.assemble_seconds:.1f} s")


def test_characters_split_across_tokens_stream_whole(embedded_model: Any) -> None:
    """Byte-level tokens can end inside a UTF-8 character; streamed one token at a time,
    the text must still come out whole, with no U+FFFD."""
    backend: Any = embedded._runtime(embedded_model.path, NUM_CTX)  # loaded once, shared
    if backend.name != "cyllama":
        pytest.skip("llama-cpp-python decodes its own stream")
    text = "中文字符 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ⟦x⟧ naïve <tool_call>"
    tokens = backend.tokenize(text)
    single = [str(backend.vocab.token_to_piece(t, special=True)) for t in tokens]
    assert any("\ufffd" in piece for piece in single)  # the case this guards against
    pieces = embedded_backends.Pieces(backend.vocab)
    streamed = [pieces.decode(t) for t in tokens]
    assert "".join(streamed) + pieces.flush() == text
    assert not any("\ufffd" in piece for piece in streamed)


def _greedy(backend: Any, prompt: list[int], keep: int) -> str:
    return "".join(backend.stream(prompt, 8, 0.0, None, keep))


@pytest.mark.timeout(300)
def test_the_opening_of_a_prompt_is_kept_on_disk_for_the_next_process(
    embedded_model: Any, tmp_path: Path
) -> None:
    """A new process (a new backend) loads the system prompt's evaluated state from disk
    instead of evaluating it again, and samples exactly what a cold start samples; a torn
    file is dropped and rewritten."""
    if embedded_backends.installed() != "cyllama":
        pytest.skip("llama-cpp-python keeps its cache in memory only")
    store = tmp_path / "kv" / "opening.kv"

    def fresh(with_store: bool) -> Any:
        kept = embedded_backends.PrefixStore(store) if with_store else None
        return embedded_backends.Cyllama(embedded_model.path, 2048, 2, kept)

    def prompt_for(backend: Any, task: str) -> tuple[list[int], int]:
        head = [{"role": "system", "content": system()["content"]}]
        whole = [*head, {"role": "user", "content": task}]
        prompt = backend.tokenize(backend.render(whole, TOOLS))
        opening = backend.tokenize(backend.render(head, TOOLS))
        keep = next(i for i, (a, b) in enumerate(zip(prompt, opening, strict=False)) if a != b)
        return prompt, keep

    first = fresh(True)
    prompt, keep = prompt_for(first, "What does calc.py do?")
    assert keep > 300  # the system prompt and the tool schemas
    _greedy(first, prompt, keep)
    first.close()
    assert first.reused == 0 and store.stat().st_size > keep * 1000

    cold = fresh(False)
    other, _ = prompt_for(cold, "Fix the bug in stats.py.")
    expected = _greedy(cold, other, keep)
    cold.close()
    warm = fresh(True)
    started = time.monotonic()
    assert _greedy(warm, other, keep) == expected
    print(f"\n[embedded] warm start: {time.monotonic() - started:.1f} s, {warm.reused} tok loaded")
    warm.close()
    assert warm.reused >= keep

    store.write_bytes(store.read_bytes()[: len(store.read_bytes()) // 2])  # torn
    torn = fresh(True)
    assert _greedy(torn, other, keep) == expected
    torn.close()
    assert torn.reused == 0
    assert embedded_prefix.unpack(store.read_bytes())[0] == other[:keep]  # rewritten whole


@pytest.mark.timeout(300)
def test_a_constrained_call_reads_the_named_file(embedded_model: Any) -> None:
    messages: list[Message] = [
        system(),
        {"role": "user", "content": "What is in the file src/settings.py? Show me."},
    ]
    started = time.monotonic()
    events = chat(embedded_model, messages)
    usage = report("tool call", events, time.monotonic() - started)
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["read"], events
    assert calls[0].arguments is not None
    assert calls[0].arguments["path"].removeprefix("./") == "src/settings.py"
    assert usage.prompt_tokens > 200 and usage.output_tokens > 5


@pytest.mark.timeout(300)
def test_a_follow_up_call_reuses_the_cached_prompt_prefix(embedded_model: Any) -> None:
    first: list[Message] = [
        system(),
        {"role": "user", "content": "What is in the file src/settings.py? Show me."},
    ]
    before = next(e for e in chat(embedded_model, first) if isinstance(e, Usage))
    call = {"id": "c1", "function": {"name": "read", "arguments": {"path": "src/settings.py"}}}
    follow: list[Message] = [
        *first,
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "    1\tDEBUG = True\n", "tool_call_id": "c1"},
    ]
    started = time.monotonic()
    events = chat(embedded_model, follow)
    runtime = embedded_backends.installed()
    usage = report(f"follow-up ({runtime})", events, time.monotonic() - started)
    if runtime != "cyllama":  # llama-cpp-python reuses the prefix inside `Llama`, out of sight
        pytest.skip(f"{runtime} does not report its cache reuse")
    assert usage.cached_tokens >= before.prompt_tokens - 8  # all of the first prompt but its end


@pytest.mark.timeout(300)
def test_the_final_answer_streams_as_content(embedded_model: Any) -> None:
    messages: list[Message] = [
        system(),
        {"role": "user", "content": "Without using any tool, say hello in one short sentence."},
    ]
    started = time.monotonic()
    events = chat(embedded_model, messages)
    report("final answer", events, time.monotonic() - started)
    assert not [e for e in events if isinstance(e, ToolCall)], events
    text = "".join(e.text for e in events if isinstance(e, ContentDelta))
    assert "hello" in text.lower()
    assert "final_answer" not in text and "{" not in text


CALC = '''\
def add(a, b):
    """Return the sum of a and b."""
    return a - b


def double(x):
    return 2 * x
'''
CHECK = "from calc import add, double\nassert add(2, 3) == 5 and double(4) == 8\nprint('ok')\n"


def default_host_free() -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", 11434)) != 0


@pytest.mark.timeout(540)
def test_rift_fixes_a_bug_in_a_real_repo(embedded_model: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text(CALC)
    (repo / "check.py").write_text(CHECK)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "calc"], check=True)
    before = subprocess.run([sys.executable, "check.py"], cwd=repo, capture_output=True)
    assert before.returncode != 0

    fallback = default_host_free()  # nothing named, nothing answering: rift picks it itself
    args = ["--temp", "0"] if fallback else ["--temp", "0", "-m", "embedded"]
    prompt = "calc.py has a bug: add(2, 3) returns -1 instead of 5. Fix it."
    env = {**os.environ, "XDG_CACHE_HOME": str(embedded_model.xdg_cache_home)}
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "rift", *args, "--output-format", "json", "-p", prompt],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=500,
        env=env,
    )
    wall = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    stats = result["stats"]
    print(
        f"\n[embedded] rift -p task: {wall:.1f} s wall, {stats['iterations']} iterations,"
        f" tools {[t['name'] for t in result['tools']]}, prompt {stats['billed_prompt_tokens']}"
        f" tok billed, output {stats['output_tokens']} tok at {stats['tokens_per_sec']} tok/s;"
        f" reply {result['reply']!r}"
    )
    if fallback:
        assert "using the embedded model embedded/qwen2.5-coder-1.5b" in run.stderr
    assert result["model"].startswith("embedded")
    assert "read" in [t["name"] for t in result["tools"]]
    check = subprocess.run([sys.executable, "check.py"], cwd=repo, capture_output=True, text=True)
    assert check.returncode == 0, (check.stderr, (repo / "calc.py").read_text(), run.stderr)
