"""`models.http.loads_line`: the stream lines' JSON parser answers exactly as `json.loads`.

It skips `json.loads`'s whitespace scans on the common case (a stripped line
holding one object); anything else must give the same value or the same error.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rift.models.http import loads_line

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_PADDING = st.text(" \t\r\n\x0b\x0c", max_size=2)
_TRAILER = st.sampled_from(["", "x", "}", ",1", " 2", "\x00", "/**/"])


def _outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", parse(text)
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=400, deadline=None)
@given(_JSON, _PADDING, _PADDING, _TRAILER)
def test_same_value_or_same_error_as_json_loads(
    value: Any, before: str, after: str, trailer: str
) -> None:
    text = before + json.dumps(value) + trailer + after
    assert _outcome(loads_line, text) == _outcome(json.loads, text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_text_fails_or_parses_as_json_loads_would(text: str) -> None:
    assert _outcome(loads_line, text) == _outcome(json.loads, text)


@pytest.mark.parametrize("text", ["", "NaN", "[1,]", '{"a":1}{"b":2}', '"\\ud800"', "1e999"])
def test_edge_cases(text: str) -> None:
    assert _outcome(loads_line, text) == _outcome(json.loads, text)
