"""rift's data classes use one mechanism, `msgspec.Struct`, never `dataclasses` or a
home-made record beside it.

A Struct is built in C (class creation ~10 µs, where a dataclass `exec`s a
method at a time, ~1 ms a class), validates and encodes JSON; two mechanisms for
one purpose meant two sets of semantics to remember (whose `replace`, whose
`field`) and the slower one creeping back onto the fast paths. The events and
their parts are Structs too, so the wire's records are the core's.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import msgspec

import rift.events

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rift"
FORBIDDEN_MODULES = ("dataclasses", "attrs", "attr", "rift.record")


def other_record_users(root: Path) -> list[str]:
    """Modules under `root` that import a record mechanism other than msgspec's (the
    `dataclasses` module, attrs, the retired `rift.record`), or define a `record`
    decorator of their own."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        decorators = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} & {
            "record",
            "dataclass",
        }
        if decorators:
            found.append(path.relative_to(root).as_posix())
            continue
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n in FORBIDDEN_MODULES for n in names):
                found.append(path.relative_to(root).as_posix())
                break
    return found


def test_no_module_uses_another_record_mechanism() -> None:
    assert other_record_users(PACKAGE) == [], "use msgspec.Struct instead"


def test_the_retired_record_module_is_gone() -> None:
    assert not (PACKAGE / "record.py").exists()


def test_the_check_would_catch_another_mechanism(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from dataclasses import dataclass\n")
    (tmp_path / "b.py").write_text("import dataclasses\n")
    (tmp_path / "c.py").write_text("from rift.record import record\n")
    (tmp_path / "d.py").write_text("def record(cls):\n    return cls\n")
    (tmp_path / "e.py").write_text("from msgspec import Struct\n")
    assert other_record_users(tmp_path) == ["a.py", "b.py", "c.py", "d.py"]


def test_events_and_their_parts_are_frozen_structs() -> None:
    classes = [
        obj
        for obj in vars(rift.events).values()
        if isinstance(obj, type) and issubclass(obj, rift.events.Record)
    ]
    assert len(classes) > 30
    for cls in classes:
        assert issubclass(cls, msgspec.Struct), cls
        assert cls.__struct_config__.frozen, cls


def test_every_record_class_in_the_core_is_a_struct() -> None:
    """Classes decorated or based on anything record-like are Structs: no class in the
    core packages carries a `__dataclass_fields__`."""
    for name in ("rift.events", "rift.config.records", "rift.tools.base", "rift.models.base"):
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__.startswith("rift"):
                assert not hasattr(obj, "__dataclass_fields__"), obj
    assert [m for m in pkgutil.iter_modules(rift.__path__) if m.name == "record"] == []
