"""A hostile repository against write, edit, read and undo (families "undo-paths", "races",
"writes-outside"; issues 30 and 34).

Each scenario stages the attack for real (symlinks in a throwaway project, the
real `rift -p` or `rift --serve` against the fake server) and reports
{case: refused}, judged only by files on disk and what reached the model:

* undo-paths: the repository ships `lnk -> a/b`; a write through
  `lnk/../../X` lands on `<project>/X` while its text folds to `<parent>/X`.
  The turn-end restore, `undo` and `rewind` must leave the outside file alone;
  undo of an edit through `config.py -> shared/config.py` must keep the symlink.
* races: a thread flips `lnk` between a project folder and an outside one (and
  swaps a project folder for a symlink out) while the model writes through it
  200 times; nothing may land outside. Likewise 200 reads of `lnk/key.txt`
  while `lnk` flips between a public folder and a Read-denied one: the secret
  never reaches the model. A FIFO and /dev/zero are read without hanging.
* writes-outside: headless writes to `../x.py`, `/tmp/x`, `~/x` and through a
  symlink out of the project are refused.
"""

from __future__ import annotations

import os
import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .common import MODEL, Sandbox, Serve, fake_server, rift_argv, sandbox

TRIES = 200
SECRET = "SECRET-TOKEN-4242"


def _write(path: str, content: str = "x = 1\n") -> dict[str, Any]:
    return {"name": "write", "arguments": {"path": path, "content": content}}


def _run(box: Sandbox, script: dict[str, Any], timeout: float = 180) -> str:
    """One `rift -p` in the box's project; returns stdout + stderr."""
    with fake_server(script) as server:
        done = subprocess.run(
            [*rift_argv(), "-p", "go", "--host", server.url, "-m", MODEL],
            cwd=box.project,
            env=box.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        sent = "\n".join(str(r) for r in server.chat_requests())
    return done.stdout + done.stderr + sent


def _holds(path: Path, data: bytes) -> bool:
    """`path` is a regular file with exactly `data` (False when it is gone)."""
    try:
        return not path.is_symlink() and path.read_bytes() == data
    except OSError:
        return False


def _converse(box: Sandbox, script: dict[str, Any], command: dict[str, Any]) -> None:
    """`rift --serve`: approval off, one prompt, then `command` (undo, rewind) answered."""
    with fake_server(script) as server:
        serve = Serve(box, "--host", server.url, "-m", MODEL)
        try:
            serve.expect("ready")
            serve.send({"cmd": "set_approval", "approve": False})
            serve.send({"cmd": "prompt", "text": "go"})
            serve.expect("done")
            serve.send(command)
            serve.collect_until(lambda e: e["event"] in ("info", "warning"), 20)
        finally:
            serve.finish()


def _hostile(box: Sandbox) -> None:
    (box.project / "a" / "b").mkdir(parents=True)
    (box.project / "lnk").symlink_to("a/b")


# ------------------------------------------------------------------ undo-paths


def _turn_end(repo_has_it: bool) -> bool:
    with sandbox() as box:
        _hostile(box)
        outside = box.root / "settings.json"
        outside.write_bytes(b"// user settings\n{}\n")
        if repo_has_it:
            (box.project / "settings.json").write_bytes(b'{"repo": 1}\n')
        turns = [{"tool_calls": [_write("lnk/../../settings.json", '{"a": 1}\n')]}]
        _run(box, {"turns": [*turns, {"content": "ok"}]})
        return _holds(outside, b"// user settings\n{}\n")


def _serve_restore(raw: str, outside_name: str, command: dict[str, Any]) -> bool:
    """Write `raw` through `lnk`, then `command` (undo or rewind); the file named
    `outside_name` beside the project must keep its bytes."""
    with sandbox() as box:
        _hostile(box)
        outside = box.root / outside_name
        outside.write_bytes(b"the user's\n")
        (box.project / "notes.txt").write_bytes(b"the user's\n")
        script = {"turns": [{"tool_calls": [_write(raw)]}, {"content": "ok"}]}
        _converse(box, script, command)
        return _holds(outside, b"the user's\n") and _holds(
            box.project / "notes.txt", b"the user's\n"
        )


def _symlinked_file() -> bool:
    with sandbox() as box:
        (box.project / "shared").mkdir()
        (box.project / "shared" / "config.py").write_bytes(b"DEBUG = False\n")
        (box.project / "config.py").symlink_to("shared/config.py")
        args = {"path": "config.py", "old_string": "False", "new_string": "True"}
        script = {
            "turns": [{"tool_calls": [{"name": "edit", "arguments": args}]}, {"content": "."}]
        }
        _converse(box, script, {"cmd": "undo"})
        restored = _holds(box.project / "shared" / "config.py", b"DEBUG = False\n")
        return (box.project / "config.py").is_symlink() and restored


def undo_path_attacks() -> dict[str, bool]:
    """{case: refused} for the undo-paths family."""
    return {
        "turn-end restore, new file via lnk/../../settings.json": _turn_end(False),
        "turn-end restore, repository's own settings.json": _turn_end(True),
        "undo after lnk/../../.profile": _serve_restore(
            "lnk/../../.profile", ".profile", {"cmd": "undo"}
        ),
        "undo after lnk/../notes.txt": _serve_restore("lnk/../notes.txt", "x", {"cmd": "undo"}),
        "rewind after lnk/../../keep.py": _serve_restore(
            "lnk/../../keep.py", "keep.py", {"cmd": "rewind", "n": 1}
        ),
        "undo through config.py -> shared/config.py": _symlinked_file(),
    }


# ----------------------------------------------------------------------- races


@contextmanager
def _flipping(link: Path, targets: tuple[Path, Path]) -> Iterator[None]:
    """A thread that keeps pointing `link` at one target then the other (atomically)."""
    stop = threading.Event()

    def flip() -> None:
        n = 0
        while not stop.is_set():
            tmp = link.with_name(f".flip-{n}")
            os.symlink(targets[n % 2], tmp)
            os.replace(tmp, link)
            n += 1

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


@contextmanager
def _swapping(folder: Path, outside: Path) -> Iterator[None]:
    """A thread that keeps replacing `folder` with a symlink to `outside` and back."""
    stop = threading.Event()
    parked = folder.with_name(folder.name + ".real")

    def swap() -> None:
        while not stop.is_set():
            try:  # rift may recreate the folder while it is parked: then just go on
                os.rename(folder, parked)
                os.symlink(outside, folder)
                os.unlink(folder)
                os.rename(parked, folder)
            except OSError:
                continue

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


def _write_race(swap_folder: bool) -> tuple[bool, int]:
    """(nothing landed outside, how many writes landed inside)."""
    with sandbox() as box:
        inside, outside = box.project / "inside", box.root / "outside"
        inside.mkdir()
        outside.mkdir()
        via = "inside" if swap_folder else "lnk"
        calls: list[dict[str, Any]] = []
        for i in range(TRIES):  # a plain write between tries: 7 failures in a row end a turn
            calls += [_write(f"{via}/pwn-{i}.txt"), _write(f"ok-{i}.txt")]
        script = {"turns": [{"tool_calls": calls}, {"content": "ok"}]}
        if swap_folder:
            with _swapping(inside, outside):
                _run(box, script)
        else:
            (box.project / "lnk").symlink_to(inside)
            with _flipping(box.project / "lnk", (inside, outside)):
                _run(box, script)
        landed = sum(1 for p in inside.iterdir() if p.name.startswith("pwn-"))
        return not any(outside.iterdir()), landed


def _read_race() -> tuple[bool, int]:
    """(the secret never reached the model, how many public reads did)."""
    with sandbox() as box:
        public, secrets = box.project / "public", box.project / "secrets"
        public.mkdir()
        secrets.mkdir()
        (public / "key.txt").write_text("PUBLIC-VALUE\n")
        (secrets / "key.txt").write_text(SECRET + "\n")
        box.write_user_config({"permissions": {"deny": ["Read(secrets/**)"]}})
        (box.project / "lnk").symlink_to(public)
        calls: list[dict[str, Any]] = []
        for i in range(TRIES):  # distinct arguments (a repeated call is refused as a loop),
            # and a plain read between tries (7 failures in a row end a turn)
            calls.append({"name": "read", "arguments": {"path": "lnk/key.txt", "limit": i + 1}})
            calls.append({"name": "read", "arguments": {"path": "public/key.txt", "limit": i + 1}})
        with _flipping(box.project / "lnk", (public, secrets)):
            out = _run(box, {"turns": [{"tool_calls": calls}, {"content": "ok"}]})
        # The last request carries every result: TRIES plain reads, plus the lnk reads
        # that resolved to the public folder (the rest were refused).
        return SECRET not in out, out.count("PUBLIC-VALUE") - TRIES


def _special_reads() -> dict[str, bool]:
    with sandbox() as box:
        os.mkfifo(box.project / "pipe")
        (box.project / "zero").symlink_to("/dev/zero")
        calls = [
            {"name": "read", "arguments": {"path": "pipe"}},
            {"name": "read", "arguments": {"path": "zero"}},
            {"name": "read", "arguments": {"path": "/dev/zero"}},
        ]
        try:
            out = _run(box, {"turns": [{"tool_calls": calls}, {"content": "ok"}]}, timeout=60)
        except subprocess.TimeoutExpired:
            return {"read a FIFO": False, "read /dev/zero": False}
        refused = out.count("not a regular file")
        return {"read a FIFO": refused >= 1, "read /dev/zero": refused >= 3}


def race_attacks() -> dict[str, bool]:
    """{case: refused} for the races family (a case also needs some inside successes,
    so a run where every write failed proves nothing)."""
    flipped, landed = _write_race(swap_folder=False)
    swapped, _ = _write_race(swap_folder=True)
    hidden, public = _read_race()
    return {
        f"write lnk/pwn.txt x{TRIES} while lnk flips inside/outside": flipped and landed > 0,
        f"write inside/pwn.txt x{TRIES} while inside/ is swapped for a symlink out": swapped,
        f"read lnk/key.txt x{TRIES} while lnk flips public/denied": hidden and public > 0,
        **_special_reads(),
    }


# -------------------------------------------------------------- writes-outside


def writes_outside_attacks() -> dict[str, bool]:
    """{case: refused} for headless writes that leave the project."""
    with sandbox() as box:
        (box.root / "elsewhere").mkdir()
        (box.project / "out").symlink_to(box.root / "elsewhere")
        tmp = Path("/tmp") / f"rift-outside-{uuid.uuid4().hex}.py"
        targets = {
            "../x.py": box.root / "x.py",
            str(tmp): tmp,
            "~/x.py": box.home / "x.py",
            "out/x.py": box.root / "elsewhere" / "x.py",
        }
        calls = [_write(raw) for raw in targets]
        try:
            _run(box, {"turns": [{"tool_calls": calls}, {"content": "ok"}]})
            return {f"write {raw}": not path.exists() for raw, path in targets.items()}
        finally:
            tmp.unlink(missing_ok=True)
