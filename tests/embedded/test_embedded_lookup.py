"""Prompt-lookup decoding gives the tokens plain decoding gives, greedy and sampled on a
fixed seed (issue 45), with the 0.5B model on cyllama's batch API."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from rift.models import local_weights

pytestmark = [pytest.mark.embedded, pytest.mark.timeout(900)]

MODEL = "qwen2.5-coder-0.5b"
SOURCE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(8))
TASK = f"Rewrite this file whole, renaming f3 to g3:\n```python\n{SOURCE}```"
TOKENS = 48


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if importlib.util.find_spec("cyllama") is None:
        pytest.skip("prompt lookup runs on cyllama (rift[local])")
    spec = local_weights.MODELS[MODEL]
    if not local_weights.weights_present(spec, tmp_path_factory.mktemp("empty")):
        pytest.skip(f"{MODEL}'s weights are not installed (rift[local-small])")
    from rift.models.embedded_backends import Cyllama

    path = local_weights.assemble(spec, tmp_path_factory.mktemp("cache"))
    return Cyllama(path, 1024, 2)


def _pieces(rt: Any, temperature: float, speculative: bool) -> list[str]:
    rt.speculative, rt.seed = speculative, 1234
    rt.ctx.memory_seq_rm(0, 0, -1)  # a cold start each time: the same prefill batches
    rt.cached.clear()
    prompt = rt.tokenize(rt.render([{"role": "user", "content": TASK}], None))
    return list(rt.stream(prompt, TOKENS, temperature, None))


@pytest.mark.parametrize("temperature", [0.0, 0.7], ids=["greedy", "sampled"])
def test_prompt_lookup_decodes_the_same_tokens_as_plain(runtime: Any, temperature: float) -> None:
    plain = _pieces(runtime, temperature, speculative=False)
    before = runtime.accepted
    fast = _pieces(runtime, temperature, speculative=True)
    assert fast == plain
    assert len(plain) >= TOKENS // 2  # a reply long enough to compare
    assert runtime.accepted > before  # guesses were kept, not only made
