"""`@path` mentions are attached by the core (rift.core.context.mentions) and obey Read rules."""

from __future__ import annotations

from pathlib import Path

from rift.core.context.mentions import expand, mentions


def _allow_all(_path: Path) -> str | None:
    return None


def test_mentions_attach_text_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01")
    text = "compare @a.txt with @bin.dat and @missing/file.py, cc @bob"
    assert mentions(text) == ["a.txt", "bin.dat", "missing/file.py", "bob"]
    out = expand(text, tmp_path, _allow_all)
    assert out.attached == ["a.txt"]
    assert out.text.startswith(text)
    assert '<file path="a.txt">\nalpha\n\n</file>' in out.text
    assert out.problems == [
        "@bin.dat: binary file, not attached",
        "@missing/file.py: not a file, not attached",
    ]
    assert expand("no mentions here", tmp_path, _allow_all).text == "no mentions here"


def test_a_read_denied_mention_is_never_attached(tmp_path: Path) -> None:
    (tmp_path / "secret.env").write_text("TOKEN=hunter2\n")

    def deny_env(path: Path) -> str | None:
        return "blocked by permission rule 'Read(*.env)'" if path.suffix == ".env" else None

    out = expand("look at @secret.env", tmp_path, deny_env)
    assert out.attached == []
    assert "hunter2" not in out.text
    assert out.problems == ["@secret.env: not attached: blocked by permission rule 'Read(*.env)'"]


def test_an_image_mention_rides_on_the_message_only_for_a_vision_model(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    (tmp_path / "shot.png").write_bytes(png)
    seen = expand("what is @shot.png", tmp_path, _allow_all, vision=True)
    assert seen.attached == ["shot.png"] and seen.problems == []
    assert seen.text == "what is @shot.png"  # the image is not text in the prompt
    assert seen.images == ("data:image/png;base64,iVBORw0KGgoAAAAAAAAAAAAAAAAAAAAA",)
    blind = expand("what is @shot.png", tmp_path, _allow_all)
    assert blind.images == () and blind.attached == []
    assert blind.problems == [
        "@shot.png: not attached: the model does not report vision (use a vision model)"
    ]
