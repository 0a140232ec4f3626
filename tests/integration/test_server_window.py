"""Context truth (issue 31): the window a llama.cpp server really serves is `/props`'s
`n_ctx` per slot, not the `n_ctx_train` its model list reports; rift budgets to it."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)

QWEN = {"name": "qwen", "extra": {"meta": {"n_ctx_train": 32768}}}


def test_llama_cpp_window_per_slot_clamps_the_budget(harness: Any) -> None:
    props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 2}
    server = harness.server([{"content": "ok"}], wire="openai", props=props, models=[QWEN])
    run = harness.run("hi", server, "-m", "qwen", openai=True)
    assert run.code == 0, run.describe()
    assert "num_ctx clamped 32768 → 4096" in run.stderr


def test_a_larger_served_window_is_adopted(harness: Any) -> None:
    props = {"default_generation_settings": {"n_ctx": 65536}, "total_slots": 1}
    server = harness.server([{"content": "ok"}], wire="openai", props=props, models=[QWEN])
    run = harness.run("hi", server, "-m", "qwen", openai=True)
    assert run.code == 0, run.describe()
    assert "context budget 32768 → 65536" in run.stderr


def test_servers_without_props_keep_the_model_list_figure(harness: Any) -> None:
    server = harness.server([{"content": "ok"}], wire="openai", models=[QWEN])
    run = harness.run("hi", server, "-m", "qwen", openai=True)
    assert run.code == 0, run.describe()
    assert "clamped" not in run.stderr and "budget" not in run.stderr
