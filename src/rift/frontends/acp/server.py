"""The ACP agent: the methods an editor calls, each mapped onto rift's core.

Each session gets its own `Agent`, configured for the session's `cwd` as rift started
in that directory would be."""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acp import (
    AuthenticateResponse,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)
from acp.helpers import update_current_mode
from acp.interfaces import Client
from acp.schema import (
    ClientCapabilities,
    CloseSessionResponse,
    ConfigOptionUpdate,
    ForkSessionResponse,
    Implementation,
    ListSessionsResponse,
    ResumeSessionResponse,
    SessionInfo,
)
from pydantic import ValidationError

from rift.config.load import Overrides, load_config
from rift.core import SessionStore, StartOptions
from rift.errors import ModelError
from rift.frontends.acp.handshake import initialize_result
from rift.frontends.acp.mapping import mcp_configs, prompt_text
from rift.frontends.acp.session import AcpSession
from rift.frontends.acp.transport import SET_MODEL_EXTENSION
from rift.fs.paths import Paths, atomic_write

log = logging.getLogger("rift.acp")
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")


class RiftAcpAgent:
    """Implements `acp.interfaces.Agent` for rift."""

    def __init__(
        self, env: Mapping[str, str], overrides: Overrides, handshake: dict[str, Any] | None = None
    ) -> None:
        """`handshake`: the params of the `initialize` rift already answered (handshake.py)."""
        self._env = env
        self._overrides = overrides
        self._client: Client | None = None
        self._capabilities: ClientCapabilities | None = None
        self._sessions: dict[str, AcpSession] = {}
        if handshake is not None:
            self._greeted(handshake.get("clientCapabilities"), handshake.get("clientInfo"))

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **_: Any,
    ) -> InitializeResponse:
        self._capabilities = client_capabilities
        if client_info is not None:
            log.info("client: %s %s", client_info.name, client_info.version)
        return InitializeResponse.model_validate(initialize_result())

    def _greeted(self, capabilities: Any, info: Any) -> None:
        """Take the client's capabilities from an `initialize` answered before the SDK loaded."""
        try:
            self._capabilities = ClientCapabilities.model_validate(capabilities or {})
        except ValidationError as exc:
            log.warning("client capabilities not understood, assuming none: %s", exc)
        if isinstance(info, dict):
            log.info("client: %s %s", info.get("name"), info.get("version"))

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        """rift talks to self-hosted models and advertises no auth method: any id is unknown."""
        raise RequestError(-32602, f"unknown auth method '{method_id}' (rift needs no login)")

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> NewSessionResponse:
        session = await self._open(cwd, StartOptions(attached=True), mcp_servers)
        asyncio.get_running_loop().call_soon(session.go_live)  # once the response is out
        return NewSessionResponse(
            session_id=session.session_id,
            modes=session.modes(),
            config_options=session.config_options(),
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **_: Any,
    ) -> LoadSessionResponse:
        """Reopen a saved session and stream its conversation before answering."""
        session = await self._reopen(cwd, session_id, mcp_servers)
        await session.replay()
        asyncio.get_running_loop().call_soon(session.announce)  # once the response is out
        return LoadSessionResponse(modes=session.modes(), config_options=session.config_options())

    async def resume_session(
        self,
        cwd: str,
        session_id: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> ResumeSessionResponse:
        """Reopen a saved session without replaying it: the editor still shows it."""
        session = await self._reopen(cwd, session_id, mcp_servers)
        asyncio.get_running_loop().call_soon(session.go_live)
        return ResumeSessionResponse(modes=session.modes(), config_options=session.config_options())

    async def fork_session(
        self,
        cwd: str,
        session_id: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **_: Any,
    ) -> ForkSessionResponse:
        """A new session that starts from a copy of a saved one (the original is untouched)."""
        source = self._session_file(session_id)
        copy = SessionStore(Paths.from_env(self._env).sessions_dir).reserve()
        try:
            atomic_write(copy, source.read_bytes())
        except OSError as exc:
            copy.unlink(missing_ok=True)
            raise RequestError(-32603, f"could not copy session '{session_id}': {exc}") from exc
        session = await self._open(cwd, StartOptions(attached=True, resume=copy), mcp_servers)
        asyncio.get_running_loop().call_soon(session.go_live)
        return ForkSessionResponse(
            session_id=session.session_id,
            modes=session.modes(),
            config_options=session.config_options(),
        )

    async def close_session(self, session_id: str, **_: Any) -> CloseSessionResponse:
        """Cancel what runs, save, and free the session's agent, tools and MCP servers."""
        session = self._session(session_id)
        del self._sessions[session_id]
        await session.aclose()
        return CloseSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        store = SessionStore(Paths.from_env(self._env).sessions_dir)
        infos: list[SessionInfo] = []
        for item in store.list_items():
            if not item.cwd.startswith("/") or (cwd is not None and item.cwd != cwd):
                continue
            saved = datetime.datetime.fromtimestamp(item.saved_at, tz=datetime.UTC)
            infos.append(
                SessionInfo(
                    session_id=Path(item.path).stem,
                    cwd=item.cwd,
                    title=item.title,
                    updated_at=saved.isoformat().replace("+00:00", "Z"),
                )
            )
        return ListSessionsResponse(sessions=infos)

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._session(session_id)
        state = session.conv.state
        parts = prompt_text(prompt, state.config.cwd, sees=state.sees)
        return await session.prompt(parts.text, parts.images)

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def set_session_mode(
        self, session_id: str, mode_id: str, **_: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        session.set_mode(mode_id)
        session.tell(
            ConfigOptionUpdate(
                session_update="config_option_update", config_options=session.config_options()
            )
        )
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id == "mode" and isinstance(value, str):
            session.set_mode(value)
            session.tell(update_current_mode(value))  # the mode selector follows
        elif config_id == "model" and isinstance(value, str):
            await session.set_model(value)
        else:
            raise RequestError(-32602, f"unknown option '{config_id}' (valid: mode, model)")
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """`session/set_model` (unstable ACP) arrives here as `_rift/set_model`."""
        if method != SET_MODEL_EXTENSION:
            raise RequestError(-32601, f"Method not found: _{method}")
        session_id, model = params.get("sessionId"), params.get("modelId")
        if not isinstance(session_id, str) or not isinstance(model, str):
            raise RequestError(-32602, "set_model needs string 'sessionId' and 'modelId'")
        await self._session(session_id).set_model(model)
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.debug("ignoring extension notification _%s", method)

    async def aclose(self) -> None:
        for session in list(self._sessions.values()):
            await session.aclose()
        self._sessions.clear()

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError(-32602, f"unknown session '{session_id}'")
        return session

    def _session_file(self, session_id: str) -> Path:
        if not _SESSION_ID.match(session_id):
            raise RequestError(-32602, f"not a rift session id: '{session_id}'")
        path = Paths.from_env(self._env).sessions_dir / f"{session_id}.json"
        if not path.is_file() or path.stat().st_size == 0:
            raise RequestError(-32602, f"no saved session '{session_id}'")
        return path

    async def _reopen(self, cwd: str, session_id: str, mcp_servers: list[Any] | None) -> AcpSession:
        """The open session of that id, or the saved one opened anew."""
        session = self._sessions.get(session_id)
        if session is None:
            path = self._session_file(session_id)
            return await self._open(cwd, StartOptions(attached=True, resume=path), mcp_servers)
        if session.conv.busy:
            raise RequestError(-32600, "that session is running a turn")
        return session

    async def _open(
        self, cwd: str, options: StartOptions, mcp_servers: list[Any] | None
    ) -> AcpSession:
        directory = Path(cwd)
        if not directory.is_absolute() or not directory.is_dir():
            raise RequestError(-32602, f"cwd must be an absolute path to a directory: {cwd}")
        if self._client is None:
            raise RequestError(-32603, "not connected")
        try:
            config = load_config(self._env, directory, self._overrides)
            session = await AcpSession.open(self._client, config, options, self._capabilities)
        except ModelError as exc:
            raise RequestError(-32603, f"rift: {exc}") from exc
        session.connect_mcp(mcp_configs(mcp_servers))
        self._sessions[session.session_id] = session
        return session
