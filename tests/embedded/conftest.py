"""The embedded model, assembled and loaded once for the whole test session.

Every test here is marked `embedded` and skips with one reason when
llama-cpp-python (the `rift[local]` extra) is absent; CI installs the extra, so
there they run. The fixture skips the same way, so a test that forgot the mark
still cannot fail for want of the extra.

The model is assembled into a session-wide cache directory (the per-test
isolated HOME would otherwise copy 1.1 GB for every test) and loaded once: the
provider keeps one `Llama` per process, keyed by file and n_ctx, and every
in-process test uses n_ctx 8192.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rift.models import local_weights
from rift.models.embedded import EmbeddedProvider

MODEL = "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class EmbeddedModel:
    """The session's model: where it lives and what assembling it cost."""

    xdg_cache_home: Path
    """Point XDG_CACHE_HOME here and rift finds the assembled model."""
    path: Path
    provider: EmbeddedProvider
    assemble_seconds: float


@pytest.fixture(scope="session")
def embedded_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedModel]:
    if not local_weights.runtime_installed():
        pytest.skip(local_weights.RUNTIME_MISSING)
    xdg = tmp_path_factory.mktemp("xdg-cache")
    cache_dir = xdg / "rift"
    spec = local_weights.MODELS[MODEL]
    started = time.monotonic()
    path = local_weights.assemble(spec, cache_dir)
    seconds = time.monotonic() - started
    provider = EmbeddedProvider(cache_dir)
    asyncio.run(provider.show(MODEL))
    yield EmbeddedModel(xdg, path, provider, seconds)
