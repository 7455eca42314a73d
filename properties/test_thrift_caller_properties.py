"""A caller's items may compute their attributes: whatever a property raises, the fit answers with
a value, and an item whose attribute raises is a `MalformedItem` naming its bucket, position and
attribute (never an exception out of the fit, never a silently dropped item)."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from thrift_fp.thrift import MalformedItem, WorkingSet, subtract_to_fit

_AT = datetime(2024, 1, 1, tzinfo=UTC)
# Each bucket's WorkingSet field, its plain values (required and optional) and its optional names.
_BUCKETS: dict[str, tuple[str, dict[str, object]]] = {
    "messages": ("messages", {"id": "m", "content": "hi", "created_at": _AT, "role": "user", "summary": False,
                              "ephemeral": False, "pair_id": None, "token_cost": None}),
    "memories": ("memories", {"content": "likes tea", "id": "mem", "importance": 0.5}),
    "retrievables": ("retrievables", {"id": "r", "content": "a passage", "score": 0.5, "size_unknown": False}),
    "thoughts": ("thoughts", {"id": "t", "content": "hmm", "created_at": _AT, "this_turn": False}),
    "tool-calls": ("tool_calls", {"ref": "c", "token_cost": 3, "created_at_ms": 1.0, "this_turn": False}),
    "tools": ("tools", {"name": "search", "description": "finds", "shed_rank": 0}),
    "image": ("image", {"label": "chart", "token_cost": 85, "kept": True}),
}
_ERRORS = st.sampled_from([ValueError, RuntimeError, KeyError, TypeError, ZeroDivisionError, LookupError])


def _computed(value: object, error: type[Exception] | None) -> property:
    def read(self: object) -> object:
        if error is not None:
            raise error("computed on demand")
        return value

    return property(read)


@st.composite
def _caller_items(draw: st.DrawFn) -> tuple[str, int, list[object], str | None]:
    bucket = draw(st.sampled_from(sorted(_BUCKETS)))
    field, values = _BUCKETS[bucket]
    count = 1 if bucket == "image" else draw(st.integers(1, 3))
    bad_index = draw(st.integers(0, count - 1))
    names = sorted(values)
    raising = draw(st.none() | st.sampled_from(names))
    error = draw(_ERRORS)
    items: list[object] = []
    for index in range(count):
        ident = {"id": f"{values.get('id', 'x')}{index}", "ref": f"c{index}", "name": f"tool{index}"}
        plain = {name: ident.get(name, value) for name, value in values.items()}
        computed = {
            name: _computed(value, error if index == bad_index and name == raising else None)
            for name, value in plain.items()
        }
        items.append(type("CallerItem", (), computed)())
    return bucket, bad_index, items, raising


def _unchecked_working_set(fields: dict[str, Any]) -> WorkingSet:
    # As production builds it: the suite's run-time checker on the constructor would read a
    # protocol's attributes itself (and meet the raising property first); production does not
    # check the WorkingSet constructor, so the fit's own shape check is what must catch it.
    working_set = WorkingSet.__new__(WorkingSet)
    inspect.unwrap(WorkingSet.__init__)(working_set, **fields)
    return working_set


@given(_caller_items())
def test_a_raising_property_is_a_malformed_item_and_computed_ones_fit_as_plain_ones(
    case: tuple[str, int, list[object], str | None],
) -> None:
    bucket, bad_index, items, raising = case
    field, _ = _BUCKETS[bucket]
    fields: dict[str, Any] = {field: items[0] if field == "image" else tuple(items)}
    fitted = subtract_to_fit(_unchecked_working_set(fields), 100_000)
    if raising is None:
        # Every attribute computed, none raising: the items fit as plain ones would.
        assert isinstance(fitted, Success)
        assert fitted.unwrap().trace.total_before > 0
    else:
        assert isinstance(fitted, Failure)
        error = fitted.failure()
        assert isinstance(error, MalformedItem)
        assert (error.bucket, error.index, error.type_name, error.attribute) == (bucket, bad_index, "CallerItem", raising)
        assert "computed on demand" in error.reason
