"""The tiny tier in four languages (issue 41, item 4): the same tasks asked in German,
Spanish and Chinese, so a decision keyed on English words shows up as a score gap.

A translation is only a fair twin of the English task if everything the model must
copy exactly (file names, identifiers, calls, quoted strings, numbers) is still there
character for character; these tests hold every prompt.<lang>.txt to that, and show
that `--lang` really changes what reaches the model.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
TASKS = REPO / "bench" / "tasks"


def _load(name: str, path: Path) -> ModuleType:
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


run_tasks = _load("bench_run_tasks_langs", TASKS / "run_tasks.py")
TINY = run_tasks.all_tasks("tiny")
TRANSLATIONS = [lang for lang in run_tasks.LANGS if lang != "en"]

# What a translation must keep verbatim: file names, `backquoted` names, calls such as
# average([]), 'quoted' and "quoted" strings, snake_case / ALL_CAPS / CamelCase names,
# and numbers (versions, lists, literals).
VERBATIM = [
    r"[\w./-]+\.(?:py|json|toml|txt|md|cfg|ini|yaml)\b",
    r"`[^`]+`",
    r"\w+\([^()]*\)",
    r"'[^']*'",
    r'"[^"]*"',
    r"\b[A-Za-z]\w*_\w*\b",
    r"\b[A-Z][A-Z0-9_]{2,}\b",
    r"\b[A-Z][a-z]+[A-Z]\w*\b",
    r"\d+(?:\.\d+)*",
    r"\[[^\]]*\]",
]


def verbatim(text: str) -> set[str]:
    """Every piece of `text` that a translation must carry over unchanged."""
    return {m.group(0).strip("`") for pattern in VERBATIM for m in re.finditer(pattern, text)}


def test_every_tiny_task_is_written_in_all_four_languages() -> None:
    assert run_tasks.LANGS == ("en", "de", "es", "zh")
    assert len(TINY) == 18
    for name in TINY:
        texts = {lang: run_tasks.read_prompt(name, "tiny", lang) for lang in run_tasks.LANGS}
        for lang, text in texts.items():
            assert text, (name, lang)
        assert len(set(texts.values())) == 4, f"{name}: a translation is a copy"


@pytest.mark.parametrize("lang", TRANSLATIONS)
@pytest.mark.parametrize("name", TINY)
def test_a_translation_keeps_every_file_name_and_identifier(name: str, lang: str) -> None:
    english = run_tasks.read_prompt(name, "tiny", "en")
    translated = run_tasks.read_prompt(name, "tiny", lang)
    wanted = verbatim(english)
    assert any(s.endswith((".py", ".json", ".toml")) for s in wanted), english
    missing = sorted(s for s in wanted if s not in translated)
    assert not missing, f"{name} ({lang}) lost {missing}: {translated}"


def test_the_extractor_sees_what_a_careless_translation_would_lose() -> None:
    english = "The message NOT_FOUND in `errors.py` says 'Fiel not found'. Fix count_up(3)."
    found = verbatim(english)
    assert {"errors.py", "NOT_FOUND", "'Fiel not found'", "count_up(3)", "3"} <= found


def test_translated_prompts_stay_out_of_the_task_repository(tmp_path: Path) -> None:
    """The model sees only the project: no prompt in any language, and no check."""
    for name in TINY:
        repo = run_tasks.copy_fixture(name, tmp_path / name, tier="tiny", git=True)
        leaked = sorted(p.name for p in repo.iterdir() if p.name.startswith("prompt"))
        assert not leaked, (name, leaked)
        assert run_tasks.damaged_files(repo) == []


def test_lang_de_picks_the_german_prompt_and_unknown_languages_are_refused() -> None:
    args = run_tasks.parse_args(["--embedded", "--tier", "tiny", "--lang", "de"])
    assert args.lang == "de"
    assert run_tasks.select_tasks(args) == TINY
    german = (run_tasks.fixtures("tiny") / "fix_max" / "prompt.de.txt").read_text("utf-8")
    assert run_tasks.read_prompt("fix_max", args.tier, args.lang) == german.strip()
    assert run_tasks.parse_args(["--embedded"]).lang == "en"
    full = run_tasks.parse_args(["--embedded", "--lang", "es"])  # the full tier is English
    with pytest.raises(SystemExit, match="no es prompt for"):
        run_tasks.select_tasks(full)
    bad = subprocess.run(
        [sys.executable, str(TASKS / "run_tasks.py"), "--embedded", "--lang", "fr", "--list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "invalid choice: 'fr'" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.timeout(120)
def test_run_tasks_lang_de_sends_the_german_task_to_the_model(tmp_path: Path) -> None:
    """End to end: run_tasks.py --lang de against the scripted fake server; the task rift
    sends is the German text, and no English prompt reaches the model."""
    from fakes.fake_server import FakeModelServer

    name = "fix_max"
    german = run_tasks.read_prompt(name, "tiny", "de")
    english = run_tasks.read_prompt(name, "tiny", "en")
    out = tmp_path / "rows.jsonl"
    with FakeModelServer({"turns": [{"content": "Erledigt.", "repeat": 8}]}) as fake:
        run = subprocess.run(
            [
                sys.executable,
                str(TASKS / "run_tasks.py"),
                *("--host", fake.url, "--model", run_tasks.FAKE_MODEL, "--tier", "tiny"),
                *("--tasks", name, "--lang", "de", "--timeout", "60", "--out", str(out)),
            ],
            capture_output=True,
            text=True,
            timeout=110,
        )
        sent = json.dumps(fake.requests(), ensure_ascii=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert german in sent
    assert english not in sent
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["task"], row["lang"], row["ok"], row["damaged"]) == (name, "de", False, 0)
