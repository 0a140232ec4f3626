"""bench/exercism.py's dev / held-out split and --resume (issue 41, item 6).

The split must never drift (tuning on an exercise that is later reported would
make the held-out figure a lie), and a run of 55 exercises by three agents must
go in slices without redoing or losing what a slice finished.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
SPLIT = json.loads((BENCH / "results" / "exercism_split.json").read_text("utf-8"))


def _load(name: str, path: Path) -> ModuleType:
    sys.path.insert(0, str(path.parent))
    sys.path.insert(0, str(path.parent / "tasks"))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))
        sys.path.remove(str(path.parent / "tasks"))


exercism = _load("bench_exercism_split", BENCH / "exercism.py")


def _exercise(root: Path, slug: str, difficulty_doc: str, test: str | None = None) -> None:
    module = slug.replace("-", "_")
    folder = root / "practice" / slug
    (folder / ".meta").mkdir(parents=True)
    (folder / ".docs").mkdir()
    (folder / f"{module}.py").write_text(f"def {module}(value):\n    pass\n")
    (folder / f"{module}_test.py").write_text(test or "import unittest\n")
    files = {"solution": [f"{module}.py"], "test": [f"{module}_test.py"]}
    (folder / ".meta" / "config.json").write_text(json.dumps({"files": files}))
    (folder / ".docs" / "instructions.md").write_text(difficulty_doc)


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "exercism.py"), *args],
        capture_output=True,
        text=True,
        timeout=170,
    )


def test_the_committed_split_is_the_seeded_one_disjoint_and_complete() -> None:
    dev, held = SPLIT["dev"], SPLIT["held-out"]
    assert (SPLIT["seed"], len(dev), len(held)) == (41, 50, 55)
    assert not set(dev) & set(held)
    assert len(set(dev) | set(held)) == 105
    assert exercism.make_split(dev + held) == {"dev": dev, "held-out": held}
    assert exercism.make_split(reversed(held + dev)) == exercism.make_split(dev + held)
    assert exercism.make_split([*dev, *held, "one-more"]) != {"dev": dev, "held-out": held}


def test_split_list_reads_the_committed_file_and_refuses_other_exercises(tmp_path: Path) -> None:
    root = tmp_path / "exercism-python"
    slugs = sorted(SPLIT["dev"] + SPLIT["held-out"])
    for slug in slugs:
        _exercise(root, slug, "x\n")
    before = (BENCH / "results" / "exercism_split.json").read_bytes()
    held = _bench("--exercises", str(root), "--split", "held-out", "--list")
    dev = _bench("--exercises", str(root), "--split", "dev", "--list")
    assert held.returncode == 0 and dev.returncode == 0, held.stderr + dev.stderr
    assert sorted(line.split()[0] for line in held.stdout.splitlines()) == SPLIT["held-out"]
    assert sorted(line.split()[0] for line in dev.stdout.splitlines()) == SPLIT["dev"]
    assert (BENCH / "results" / "exercism_split.json").read_bytes() == before
    # a fresh split file for the same exercises is the same split, written once
    fresh = tmp_path / "split.json"
    again = _bench("--exercises", str(root), "--split", "dev", "--split-file", str(fresh), "--list")
    assert again.returncode == 0 and again.stdout == dev.stdout
    assert json.loads(fresh.read_text()) == SPLIT
    # another exercise set against the committed file: one line, no traceback
    _exercise(root, "brand-new", "x\n")
    other = _bench("--exercises", str(root), "--split", "held-out", "--list")
    assert other.returncode != 0 and "Traceback" not in other.stderr
    assert "1 here not in it" in other.stderr
    both = _bench("--exercises", str(root), "--split", "dev", "--slugs", "bob", "--list")
    assert both.returncode == 2 and "give one" in both.stderr


ADD_ONE_TEST = (
    "import unittest\n\nfrom add_one import add_one\n\n\n"
    "class AddOneTest(unittest.TestCase):\n"
    "    def test_adds_one(self):\n        self.assertEqual(add_one(1), 2)\n"
)
GREET_TEST = (
    "import unittest\n\nfrom greet import greet\n\n\n"
    "class GreetTest(unittest.TestCase):\n"
    "    def test_greets(self):\n        self.assertEqual(greet('Ann'), 'Hello, Ann!')\n"
)


def _write(path: str, content: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def _script(*turns: dict[str, object]) -> dict[str, object]:
    models = [{"name": "fake-model", "capabilities": ["tools"], "context_length": 8192}]
    return {"models": models, "wire": "openai", "turns": list(turns)}


def _slice(root: Path, save: Path, url: str, slugs: str, *extra: str) -> str:
    run = _bench(
        *("--exercises", str(root), "--slugs", slugs, "--agents", "rift-server"),
        *("--server-url", url + "/v1", "--model", "fake-model", "--timeout", "60"),
        *("--save", str(save), *extra),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@pytest.mark.timeout(240)
def test_resume_skips_the_pairs_a_slice_finished_and_appends_the_rest(tmp_path: Path) -> None:
    from fakes.fake_server import FakeModelServer

    root = tmp_path / "exercism-python"
    _exercise(root, "greet", "Say hello to someone.\n", GREET_TEST)
    _exercise(root, "add-one", "Return the value plus one.\n", ADD_ONE_TEST)
    save = tmp_path / "held_out.txt"
    jsonl = save.with_suffix(".jsonl")
    greet = _write("greet.py", "def greet(name):\n    return f'Hello, {name}!'\n")
    with FakeModelServer(_script(greet, {"content": "Done.", "repeat": 5})) as fake:
        _slice(root, save, fake.url, "greet")
    (first,) = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert (first["exercise"], first["pass1"]) == ("greet", True)
    with jsonl.open("a") as handle:  # a slice killed mid-write leaves half a line
        handle.write('{"agent": "rift-server", "exerc')
    add_one = _write("add_one.py", "def add_one(value):\n    return value + 1\n")
    with FakeModelServer(_script(add_one, {"content": "Done.", "repeat": 5})) as fake:
        table = _slice(root, save, fake.url, "greet,add-one", "--resume")
        asked = json.dumps(fake.requests())
    assert "Say hello to someone" not in asked  # greet was done: not run again
    assert "Return the value plus one" in asked
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert rows[0] == first
    assert [(r["exercise"], r["pass1"]) for r in rows] == [("greet", True), ("add-one", True)]
    assert "pass@1" in table and "2/2" in table  # the table counts both slices
    # everything done: a resumed run starts nothing and still prints the table
    with FakeModelServer(_script({"content": "unexpected", "repeat": 5})) as fake:
        again = _slice(root, save, fake.url, "greet,add-one", "--resume")
        assert not [r for r in fake.requests() if r.get("_path", "").endswith("completions")]
    assert "2/2" in again and len(jsonl.read_text().splitlines()) == 2
    # --resume without --save has nothing to resume from
    bad = _bench("--exercises", str(root), "--agents", "rift-server", "--resume")
    assert bad.returncode != 0 and "--resume needs --save" in bad.stderr
    assert "Traceback" not in bad.stderr
