"""Regressions (issue 11): a wrongly typed element inside a list is an error value every time.

beartype checks one sampled element of a list, so before ``Each[T]`` (thrift_fp._args) a bad
element raised a beartype violation only when the draw hit it. Fifty calls make a draw that
hits it all but certain, so each test fails on the old annotations.
"""

from __future__ import annotations

from returns.result import Failure

from thrift_fp.records import MemoryStore, ReaderDescriptor, open_reader, parse_retrievable, spool_retrievables
from thrift_fp.render import fit_and_render
from thrift_fp.thrift import Tool, WorkingSet, subtract_to_fit

_CALLS = 50
_RECORD = parse_retrievable(
    {"id": "d", "content": "x", "trust_tier": "first-party", "created_at": 0, "updated_at": 0}
).unwrap()
_TOOLS = WorkingSet(tools=(Tool("search", "Search."),))


def test_a_non_record_among_records_to_spool() -> None:
    for _ in range(_CALLS):
        failed = spool_retrievables([_RECORD, "d", _RECORD], MemoryStore())  # type: ignore[list-item]  # on purpose
        assert isinstance(failed, Failure) and "records[1]: expected a Retrievable, got str" in failed.failure().message


def test_a_non_store_among_the_stores_of_a_snapshot() -> None:
    for _ in range(_CALLS):
        failed = open_reader(ReaderDescriptor("memory", "m", "x"), [MemoryStore(), object()])  # type: ignore[list-item]  # on purpose
        assert isinstance(failed, Failure) and "stores[1] is a object, not a ByteStore" in failed.failure().message


def test_a_non_str_among_the_relevant_tool_names() -> None:
    for _ in range(_CALLS):
        for fit in (subtract_to_fit, fit_and_render):
            failed = fit(_TOOLS, 100, ["search", 3])  # type: ignore[list-item]  # on purpose
            assert isinstance(failed, Failure) and "relevant_tool_names[1]" in failed.failure().message
