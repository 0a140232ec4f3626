"""The embedded model's prompt cache on disk: the KV state of the longest prompt prefix,
kept beside the model file so a fresh process skips its first, longest prefill."""

from __future__ import annotations

import logging
import struct
from pathlib import Path
from typing import Any

from rift.fs.paths import atomic_write

log = logging.getLogger("rift.embedded")


def common_prefix(a: list[int], b: list[int], limit: int) -> int:
    """How many leading tokens `a` and `b` share, at most `limit`."""
    limit = min(limit, len(a), len(b))
    common = 0
    while common < limit and a[common] == b[common]:
        common += 1
    return common


class PrefixStore:
    """The KV state of the prompt every task starts with, kept on disk between processes.
    A file that cannot be loaded is deleted and the prompt evaluated as if it were absent;
    it is written through a temp file and a rename, so a reader never sees half of one."""

    MIN_TOKENS = 64
    """Below this a load costs about what it saves."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tokens: list[int] | None = None
        """What the file holds, once looked at (None: not yet)."""

    @classmethod
    def beside(cls, model: Path, n_ctx: int) -> PrefixStore:
        return cls(model.parent.parent / "kv" / f"{model.stem}.ctx{n_ctx}.kv")

    def load(self, ctx: Any, prompt: list[int]) -> list[int]:
        """Fill `ctx` from the file when the file's tokens begin `prompt`; the tokens now held."""
        if self.tokens is not None:
            return []
        self.tokens = []
        try:
            raw = self.path.read_bytes()
        except OSError:
            return []
        try:
            tokens, state = unpack(raw)
            if common_prefix(tokens, prompt, len(tokens)) < min(len(tokens), self.MIN_TOKENS):
                self.tokens = tokens
                return []  # another prompt's state: of no use here
            ctx.set_state_seq_data(state, 0)
        except Exception:  # a torn or foreign file: forget it, evaluate from scratch
            ctx.memory_seq_rm(0, 0, -1)
            self.path.unlink(missing_ok=True)
            return []
        self.tokens = tokens
        return list(tokens)

    def wants(self, prefix: list[int]) -> bool:
        """Whether `prefix` is worth saving: long enough and not what the file holds."""
        return len(prefix) >= self.MIN_TOKENS and prefix != self.tokens

    def save(self, ctx: Any, tokens: list[int]) -> None:
        """Save the state of `tokens` (all `ctx` holds now); a failure only costs speed."""
        self.tokens = list(tokens)
        try:
            atomic_write(self.path, pack(tokens, bytes(ctx.get_state_seq_data(0))))
        except Exception:  # best effort: the next process evaluates the prompt itself
            log.debug("could not save the prompt cache", exc_info=True)


_MAGIC = b"rift-kv 1\n"


def pack(tokens: list[int], state: bytes) -> bytes:
    """The file: a magic line, the token count, the tokens (int32), then the runtime's state."""
    return _MAGIC + struct.pack(f"<I{len(tokens)}i", len(tokens), *tokens) + state


def unpack(raw: bytes) -> tuple[list[int], bytes]:
    if not raw.startswith(_MAGIC):
        raise ValueError("not a rift prompt cache")
    at = len(_MAGIC)
    (count,) = struct.unpack_from("<I", raw, at)
    at += 4
    tokens = list(struct.unpack_from(f"<{count}i", raw, at))
    at += 4 * count
    if at >= len(raw):
        raise ValueError("prompt cache without state")
    return tokens, raw[at:]
