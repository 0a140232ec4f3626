"""The bytes write and edit put on disk: the new text, with every byte outside the
changed region exactly as it was.

Tools see a file as UTF-8 text with each other byte shown as U+FFFD, so encoding it
back damaged every non-ASCII byte of a latin-1 file after a one-line edit (issue 30).
The old text, decoded again with `surrogateescape`, lines up with the shown text
character for character: parts of the new text equal to it take the old bytes back,
and only what changed is encoded (in the file's legacy encoding where that fits).
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"


def legacy_encoding(prior: bytes) -> str:
    """The encoding to write new characters in for a file that is not UTF-8."""
    try:
        prior.decode("cp1252")
    except UnicodeDecodeError:
        return "latin-1"
    return "cp1252"


def kept_bytes(prior: bytes | None, new: str) -> bytes:
    """`new` as bytes for a file that held `prior`; bytes in unchanged parts kept."""
    if prior is None or b"\x00" in prior[:8192]:
        return new.encode("utf-8")
    try:
        prior.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return new.encode("utf-8")  # a UTF-8 file: the shown text was the file's text
    raw = prior.decode("utf-8", errors="surrogateescape")
    shown = "".join(REPLACEMENT if "\udc80" <= c <= "\udcff" else c for c in raw)
    encoding = legacy_encoding(prior)
    start = _common_prefix(shown, new)
    end = _common_suffix(shown, new, start)
    parts = [raw[:start].encode("utf-8", "surrogateescape")]
    parts += _middle(
        raw[start : len(shown) - end],
        shown[start : len(shown) - end],
        new[start : len(new) - end],
        encoding,
    )
    parts.append(raw[len(shown) - end :].encode("utf-8", "surrogateescape"))
    return b"".join(parts)


def _middle(raw: str, shown: str, new: str, encoding: str) -> list[bytes]:
    """The changed region: stretches equal to the old text keep their bytes (the model
    copied a U+FFFD line back), the rest is encoded."""
    if REPLACEMENT not in shown:
        return [_encode(new, encoding)]
    from difflib import SequenceMatcher  # only for a changed region that held such bytes

    out: list[bytes] = []
    matcher = SequenceMatcher(None, shown, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(raw[i1:i2].encode("utf-8", "surrogateescape"))
        else:
            out.append(_encode(new[j1:j2], encoding))
    return out


def _encode(text: str, encoding: str) -> bytes:
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a: str, b: str, floor: int) -> int:
    """Length of the common tail that does not reach back into the first `floor` chars."""
    n = min(len(a), len(b)) - floor
    i = 0
    while i < n and a[-1 - i] == b[-1 - i]:
        i += 1
    return i
