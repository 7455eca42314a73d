"""parse_retrievable is total on JSON-like input, and reports exactly the fields that are wrong."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from properties.records_strategies import CORRUPTIONS, corrupt, json_like, materialise, raw_records
from thrift_fp.records import InvalidRetrievable, Retrievable, parse_retrievable
from thrift_fp.records._fields import FIELDS


@given(json_like)
def test_parse_never_raises_on_json_like_input(value: object) -> None:
    before = copy.deepcopy(value)
    result = parse_retrievable(value)
    assert isinstance(result, Success | Failure)
    assert value == before or value != value  # unmodified (NaN never equals itself)
    if isinstance(result, Failure):
        error = result.failure()
        assert isinstance(error, InvalidRetrievable) and error.problems
        assert isinstance(error.message, str)
        allowed = set(FIELDS) | {"(record)"}
        if isinstance(value, dict):
            allowed |= {key if isinstance(key, str) else repr(key) for key in value}
        assert error.fields <= allowed
    else:
        assert isinstance(result.unwrap(), Retrievable)


@given(raw_records())
def test_generated_valid_records_parse(raw: dict[str, Any]) -> None:
    assert isinstance(parse_retrievable(materialise(raw)), Success)


@given(
    raw_records(),
    st.lists(st.sampled_from(sorted(CORRUPTIONS)), min_size=1, unique=True),
    st.lists(st.text(max_size=8).filter(lambda key: key not in FIELDS), max_size=2, unique=True),
    st.data(),
)
def test_every_invalid_field_is_reported_and_only_those(
    raw: dict[str, Any], broken: list[str], unknown: list[str], data: st.DataObject
) -> None:
    raw = materialise(raw)
    for field in broken:
        corrupt(raw, field, data.draw(CORRUPTIONS[field], label=field))
    for key in unknown:
        raw[key] = "surplus"
    result = parse_retrievable(raw)
    assert isinstance(result, Failure)
    assert result.failure().fields == set(broken) | set(unknown)
    assert len(result.failure().problems) == len(broken) + len(unknown)

