"""Every error rift raises on purpose, in one tree under `RiftError`: `ModelError` (and its
kinds) for anything between rift and a model server, `ToolError` for a tool that could not
do what was asked.

Foreign exceptions (httpx, OSError, json) are mapped into this tree at the
`models/` and `tools/` boundaries with `raise ... from exc`, so front ends only
ever need to catch `RiftError`.
"""

from __future__ import annotations


class RiftError(Exception):
    """Base of every deliberate rift error; its message is shown to people as-is."""


class ModelError(RiftError):
    """A failure talking to a model server."""


class ServerUnreachable(ModelError):
    """The model server did not accept a connection."""

    def __init__(self, host: str, detail: str = "", hint: str = "") -> None:
        self.host = host
        self.detail = detail
        message = (
            f"cannot reach the model server at {host}"
            + (f" ({detail})" if detail else "")
            + " — start it, or point rift elsewhere with --host URL, the RIFT_HOST"
            ' environment variable, or "host" in ~/.config/rift/config.json'
            + (f"; {hint}" if hint else "")
        )
        super().__init__(message)


class ServerHTTPError(ModelError):
    """The server answered with a non-2xx status; `message` is its own explanation."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(f"{status}: {message}")


class StreamError(ModelError):
    """A streamed answer broke off or could not be parsed."""


class ReadIdleTimeout(ModelError):
    """The server went silent for longer than the read-idle timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            f"the model server sent nothing for {seconds:g} s (read-idle timeout;"
            " RIFT_READ_TIMEOUT sets it, 0 disables it)"
        )


class ModelNotUsable(ModelError):
    """Preflight refused the model: it does not exist or cannot call tools."""


class ToolError(RiftError):
    """A tool failed in a way the model should read and recover from."""
