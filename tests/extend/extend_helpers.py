"""Helpers shared by the extension tests (a uniquely named module: every conftest is `conftest`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MODEL = "fake-model"


def data_dir() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "rift"


def config_dir() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "rift"


def trusted(name: str = "trusted-hooks.json") -> list[str]:
    path = data_dir() / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def request_text(record: dict[str, Any]) -> str:
    """A logged chat request's messages as one JSON string (for substring checks)."""
    return json.dumps(record.get("messages", []), ensure_ascii=False)


def tool_names(record: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in record.get("tools") or []]
