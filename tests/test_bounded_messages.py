"""Regressions: error messages of thrift, render and sources show caller values bounded.

Each raised before, from a message built with ``repr``/``str`` of unbounded data.
"""

from __future__ import annotations

from datetime import datetime

from thrift_fp.render import DuplicateRecordId
from thrift_fp.render._escape import escape_attribute
from thrift_fp.sources import chunk_text
from thrift_fp.thrift import InvalidItemField, Message, WorkingSet, subtract_to_fit
from thrift_fp.thrift._relevance import scaled_relevance_floor

_LONG_ID = "x" * 100_000


def test_a_long_record_id_is_cut_in_the_duplicate_message() -> None:
    message = DuplicateRecordId(_LONG_ID).message
    assert len(message) < 300 and "100000 chars" in message


def test_a_long_item_id_is_cut_in_thrift_messages() -> None:
    error = InvalidItemField("messages", _LONG_ID, "created_at", 10**5000, "expected a datetime")
    assert len(error.message) < 400
    assert "too long to print" in error.message


def test_a_naive_timestamp_on_a_long_id_fails_with_a_bounded_message() -> None:
    naive = datetime(2026, 1, 1)
    failed = subtract_to_fit(WorkingSet(messages=(Message(_LONG_ID, "hi", naive),)), 100)
    assert len(failed.failure().message) < 400


def test_an_int_past_the_print_limit_is_described_in_an_attribute() -> None:
    assert escape_attribute(10**4300).startswith("an int of ")
    assert escape_attribute(7) == "7"


def test_a_huge_negative_passage_bound_is_an_error_value_with_a_message() -> None:
    failed = chunk_text("", -(10**5000))
    assert "too long to print" in failed.failure().message


def test_huge_ints_never_raise_in_the_relevance_floor() -> None:
    assert scaled_relevance_floor(10**4299, 1) == 0.43
    assert scaled_relevance_floor(1, 10**4299) == 0.125


