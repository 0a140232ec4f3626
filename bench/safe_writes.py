"""What race-free file access costs per write and read (issue 30, rift/fs/safe_fs.py).

    python bench/safe_writes.py [--files 500] [--depth 6]

The write tool used to write with `Path.write_bytes` (following every symlink at
the moment of the write) and read with `Path.read_bytes`; it now resolves the
path once and opens it component by component from `/` without following
symlinks, writes a temp file in that directory descriptor, fsyncs it and renames
it. Same run, same files, same depth below a temp dir: the old calls are the
baseline, `paths.atomic_write` (temp file, fsync, rename by path) shows how much
is the fsync rather than the walk.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from rift.fs import safe_fs  # noqa: E402
from rift.fs.paths import atomic_write  # noqa: E402


def _time(files: list[Path], action: Callable[[Path], object]) -> float:
    """Microseconds per call, best of three rounds."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for path in files:
            action(path)
        best = min(best, (time.perf_counter() - start) / len(files) * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--depth", type=int, default=6)
    args = parser.parse_args()
    data = b"x = 1\n" * 200
    with tempfile.TemporaryDirectory() as tmp:
        deep = Path(tmp).resolve().joinpath(*(f"d{n}" for n in range(args.depth)))
        deep.mkdir(parents=True)
        files = [deep / f"f{n}.py" for n in range(args.files)]
        rows = [
            ("write: Path.write_bytes (old, baseline)", lambda p: p.write_bytes(data)),
            ("write: paths.atomic_write (fsync + rename)", lambda p: atomic_write(p, data)),
            ("write: safe_fs.write_atomic (new)", lambda p: safe_fs.write_atomic(p, data)),
            ("read: Path.read_bytes (old, baseline)", lambda p: p.read_bytes()),
            ("read: safe_fs.read_regular (new)", lambda p: safe_fs.read_regular(p)),
        ]
        print(f"{args.files} files, {len(deep.parts)} path components, best of 3")
        for name, action in rows:
            print(f"  {name:<46} {_time(files, action):8.1f} µs per file")


if __name__ == "__main__":
    main()
