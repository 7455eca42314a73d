"""parse_retrievable: one example per rule and error branch, plus the timestamp rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from returns.result import Failure

from thrift_fp.records import FieldProblem, InvalidRetrievable, MemoryStore, SpooledArtifact, parse_retrievable
from thrift_fp.records._timestamps import parse_timestamp
from thrift_fp.tokens import Tokenizable

BASE: dict[str, Any] = {
    "id": "doc-1",
    "content": "Some retrieved text.",
    "trust_tier": "first-party",
    "created_at": "2024-05-01T12:00:00Z",
    "updated_at": "2024-05-02T12:00:00Z",
}


def problems(**changes: Any) -> tuple[FieldProblem, ...]:
    raw = {**BASE, **changes}
    for name in [key for key, value in changes.items() if value is _DROP]:
        del raw[name]
    result = parse_retrievable(raw)
    assert isinstance(result, Failure), result
    error = result.failure()
    assert isinstance(error, InvalidRetrievable)
    return error.problems


_DROP = object()


def reasons(**changes: Any) -> dict[str, str]:
    return {problem.field: problem.reason for problem in problems(**changes)}


def test_a_valid_record_has_defaults_and_utc_timestamps() -> None:
    record = parse_retrievable(BASE).unwrap()
    assert (record.source, record.kind, record.score, record.inline, record.artifact_constructor) == (
        None, None, None, False, None,
    )
    assert record.created_at == datetime(2024, 5, 1, 12, tzinfo=UTC)
    assert record.created_at.tzinfo is UTC


def test_the_input_mapping_is_not_modified() -> None:
    raw = dict(BASE, score=1)
    snapshot = dict(raw)
    parse_retrievable(raw)
    assert raw == snapshot


@pytest.mark.parametrize("value", ["", 5, None, ["x"]])
def test_id_must_be_a_non_empty_string(value: object) -> None:
    assert "id" in reasons(id=value)


@pytest.mark.parametrize("value", ["", 3, b"bytes", None])
def test_content_must_be_text_tokenizable_or_spooled(value: object) -> None:
    assert "content" in reasons(content=value)


def test_content_kinds_accepted() -> None:
    reader = MemoryStore().write("doc-1", "x").unwrap()
    for content in ("text", Tokenizable("static"), Tokenizable(lambda ctx: "dynamic"), SpooledArtifact(reader)):
        assert parse_retrievable({**BASE, "content": content}).unwrap().content is content


def test_negative_size_hints_are_rejected() -> None:
    reader = MemoryStore().write("doc-1", "x").unwrap()
    found = reasons(content=SpooledArtifact(reader, byte_length_hint=-1))
    assert found["content"] == "spooled artifact's byte_length_hint must be an int in [0, 2**63 - 1] or None, got -1"


def test_size_hints_past_64_bits_are_rejected() -> None:
    # Regression: a hint of 2**1024 was accepted, then overflowed the handle text.
    reader = MemoryStore().write("doc-1", "x").unwrap()
    for hint in (2**63, 2**1024, 10**5000):
        assert "must be an int in [0, 2**63 - 1]" in reasons(content=SpooledArtifact(reader, line_count_hint=hint))["content"]


def test_trust_tier_has_no_default() -> None:
    assert reasons(trust_tier=_DROP)["trust_tier"] == (
        "is required and has no default; choose one of 'first-party', 'third-party-public', 'third-party-private'"
    )


@pytest.mark.parametrize("value", ["user", "system", "First-Party", 1])
def test_trust_tier_must_be_one_of_three(value: object) -> None:
    assert reasons(trust_tier=value)["trust_tier"].startswith("must be one of 'first-party'")


@pytest.mark.parametrize("tier", ["first-party", "third-party-public", "third-party-private"])
def test_each_trust_tier_is_accepted(tier: str) -> None:
    assert parse_retrievable({**BASE, "trust_tier": tier}).unwrap().trust_tier == tier


@pytest.mark.parametrize("value", [True, False, float("nan"), float("inf"), -float("inf"), -0.1, 1.01, 2, "0.5"])
def test_score_must_be_a_finite_number_in_unit_range(value: object) -> None:
    assert "score" in reasons(score=value)


@pytest.mark.parametrize("value", [0, 1, 0.0, 0.5, 1.0])
def test_score_bounds_are_inclusive_and_stored_as_float(value: float) -> None:
    score = parse_retrievable({**BASE, "score": value}).unwrap().score
    assert score == value and isinstance(score, float)


@pytest.mark.parametrize("name", ["source", "kind"])
@pytest.mark.parametrize("value", ["", 7, ["a"]])
def test_optional_texts_must_be_non_empty_strings(name: str, value: object) -> None:
    assert name in reasons(**{name: value})


@pytest.mark.parametrize("value", ["pdf", "", 7, ["a"]])
def test_artifact_constructor_must_be_a_callable(value: object) -> None:
    # A string name used to be accepted; a resolver is a callable.
    assert reasons(artifact_constructor=value)["artifact_constructor"].startswith("must be a callable")


def test_none_means_absent_for_optional_fields() -> None:
    record = parse_retrievable({**BASE, "source": None, "score": None, "inline": None}).unwrap()
    assert (record.source, record.score, record.inline) == (None, None, False)


@pytest.mark.parametrize("value", [1, 0, "true"])
def test_inline_must_be_a_bool(value: object) -> None:
    assert reasons(inline=value)["inline"].startswith("must be true or false")


def test_unknown_keys_are_rejected_and_seed_spellings_get_a_hint() -> None:
    found = reasons(trustTier="first-party", colour="blue")
    assert found["trustTier"] == "unknown field; did you mean 'trust_tier'?"
    assert found["colour"].startswith("unknown field; the fields are id, content, trust_tier")


def test_non_string_keys_are_reported_by_repr() -> None:
    raw: dict[object, object] = {key: value for key, value in BASE.items()}
    raw.update({3: "x", (1,): "y"})
    assert [problem.field for problem in _problems_of(raw)] == ["3", "(1,)"]


def _problems_of(raw: object) -> tuple[FieldProblem, ...]:
    result = parse_retrievable(raw)
    assert isinstance(result, Failure)
    error: InvalidRetrievable = result.failure()
    return error.problems


@pytest.mark.parametrize("raw", [[], "text", 3, None])
def test_a_non_object_is_one_problem(raw: object) -> None:
    (problem,) = _problems_of(raw)
    assert problem.field == "(record)"
    assert problem.reason.startswith("expected an object with the fields id, content")


def test_every_problem_is_reported_at_once_in_a_readable_message() -> None:
    result = parse_retrievable({"content": "", "score": 3, "inline": "no", "extra": 1})
    assert isinstance(result, Failure)
    assert result.failure().fields == {
        "extra", "id", "content", "trust_tier", "created_at", "updated_at", "score", "inline",
    }
    assert result.failure().message.startswith("invalid retrievable (8 problems):\n  - extra: unknown field")


def test_long_bad_values_are_shortened_in_messages() -> None:
    reason = reasons(id=["x" * 10_000])["id"]
    assert len(reason) < 120 and "... (10000 chars)" in reason


# --- timestamps -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T14:00:00+02:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T12:00:00.250000+00:00", datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=UTC)),
        (1714564800, datetime(2024, 5, 1, 12, tzinfo=UTC)),
        (1714564800.5, datetime(2024, 5, 1, 12, 0, 0, 500000, tzinfo=UTC)),
        (1714564800000, datetime(2024, 5, 1, 12, tzinfo=UTC)),
        (1714564800250, datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=UTC)),
        (0, datetime(1970, 1, 1, tzinfo=UTC)),
        (-86400, datetime(1969, 12, 31, tzinfo=UTC)),
        (99_999_999_999, datetime(5138, 11, 16, 9, 46, 39, tzinfo=UTC)),
        (100_000_000_000, datetime(1973, 3, 3, 9, 46, 40, tzinfo=UTC)),
        (datetime(2024, 5, 1, 14, tzinfo=timezone(timedelta(hours=2))), datetime(2024, 5, 1, 12, tzinfo=UTC)),
    ],
)
def test_timestamp_forms(value: object, expected: datetime) -> None:
    parsed = parse_timestamp(value).unwrap()
    assert parsed == expected and parsed.tzinfo is UTC


@pytest.mark.parametrize(
    ("value", "reason_start"),
    [
        (True, "a bool (True) is not a timestamp"),
        (datetime(2024, 5, 1), "naive datetime 2024-05-01 00:00:00 has no timezone"),
        ("2024-05-01T12:00:00", "'2024-05-01T12:00:00' has no UTC offset"),
        ("2024-05-01", "'2024-05-01' has no UTC offset"),
        ("yesterday", "'yesterday' is not an ISO-8601 timestamp"),
        (float("nan"), "epoch value nan is not a finite number"),
        (float("inf"), "epoch value inf is not a finite number"),
        (10**30, "epoch value 1000000000000000000000000000000 (milliseconds) is out of the representable range"),
        (1e15, "epoch value 1000000000000000.0 (milliseconds) is out of the representable range"),
        (datetime.min.replace(tzinfo=timezone(timedelta(hours=2))), "datetime 0001-01-01 00:00:00+02:00 cannot be expressed in UTC"),
        ([2024], "expected an ISO-8601 string, Unix epoch seconds/milliseconds or an aware datetime, got list"),
    ],
)
def test_timestamp_rejections(value: object, reason_start: str) -> None:
    result = parse_timestamp(value)
    assert isinstance(result, Failure)
    assert result.failure().startswith(reason_start)
    assert reasons(created_at=value)["created_at"] == result.failure()


def test_missing_timestamps_are_reported() -> None:
    assert set(reasons(created_at=_DROP, updated_at=_DROP)) == {"created_at", "updated_at"}


@pytest.mark.parametrize("field", ["id", "content", "trust_tier", "created_at", "score", "inline", "source"])
def test_integers_too_long_to_print_are_reported_not_raised(field: str) -> None:
    # Python refuses str() of an int past 4300 digits; the message must still be built, and short.
    reason = reasons(**{field: 10**5000})[field]
    assert len(reason) < 200, reason


def test_out_of_range_epochs_are_shortened_in_messages() -> None:
    reason = reasons(created_at=10**300)["created_at"]
    assert len(reason) < 200 and "an int of 997 bits" in reason, reason


def test_a_timestamp_of_an_unsupported_type_shows_the_value_it_got() -> None:
    raw = {"id": "a", "content": "x", "trust_tier": "first-party", "created_at": [2024, 5], "updated_at": 0}
    error = parse_retrievable(raw).failure()
    reason = "expected an ISO-8601 string, Unix epoch seconds/milliseconds or an aware datetime, got list [2024, 5]"
    assert error == InvalidRetrievable((FieldProblem("created_at", reason),))
    assert error.fields == frozenset({"created_at"})
    assert parse_timestamp([2024, 5]).failure() == reason


@pytest.mark.parametrize(("raw", "got"), [([], "list"), (None, "NoneType")])
def test_a_non_object_is_one_problem_naming_every_field_and_the_type_it_got(raw: object, got: str) -> None:
    fields = "id, content, trust_tier, created_at, updated_at, source, kind, score, inline, artifact_constructor, heading"
    assert _problems_of(raw) == (FieldProblem("(record)", f"expected an object with the fields {fields}; got {got}"),)


def test_each_missing_required_field_is_a_problem_saying_it_is_required() -> None:
    assert _problems_of({"trust_tier": "first-party"}) == tuple(
        FieldProblem(name, "is required") for name in ("id", "content", "created_at", "updated_at")
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (-99_999_999_999, "epoch value -99999999999 (seconds) is out of the representable range"),
        (datetime.min.replace(tzinfo=timezone(timedelta(hours=2))),
         "datetime 0001-01-01 00:00:00+02:00 cannot be expressed in UTC: OverflowError: date value out of range"),
        (datetime(2024, 5, 1), "naive datetime 2024-05-01 00:00:00 has no timezone; attach one (e.g. tzinfo=UTC)"),
    ],
)
def test_timestamp_rejections_give_the_whole_reason(value: object, reason: str) -> None:
    assert parse_timestamp(value).failure() == reason


def test_epoch_values_from_1e11_on_are_milliseconds_and_below_are_seconds() -> None:
    assert parse_timestamp(10**11).unwrap() == datetime(1973, 3, 3, 9, 46, 40, tzinfo=UTC)
    assert parse_timestamp(10**11 - 1).unwrap() == datetime(5138, 11, 16, 9, 46, 39, tzinfo=UTC)


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("content", "", "must not be an empty string"),
        ("content", 7, "must be a non-empty string, a Tokenizable or a SpooledArtifact, got int 7"),
        ("artifact_constructor", "pdf", "must be a callable (reader, byte_length_hint, line_count_hint) -> "
         "SpooledArtifact, such as a SpooledArtifact subclass; got str 'pdf'"),
    ],
)
def test_invalid_content_and_constructors_give_the_whole_reason(field: str, value: object, reason: str) -> None:
    assert reasons(**{field: value}) == {field: reason}


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("id", 7, "must be a non-empty string, got 7"),
        ("trust_tier", "user", "must be one of 'first-party', 'third-party-public', 'third-party-private', got 'user'"),
        ("source", "", "must be a non-empty string when given, got ''"),
        ("kind", 7, "must be a non-empty string when given, got 7"),
        ("score", "0.5", "must be a number in [0, 1], got str '0.5'"),
        ("score", True, "must be a number in [0, 1], got bool True"),
        ("score", 1.5, "must be a finite number in [0, 1], got 1.5"),
        ("score", float("nan"), "must be a finite number in [0, 1], got nan"),
        ("inline", 1, "must be true or false, got int 1"),
    ],
)
def test_each_invalid_field_gives_the_whole_reason_with_the_value_it_got(field: str, value: object, reason: str) -> None:
    assert reasons(**{field: value}) == {field: reason}


@pytest.mark.parametrize("score", [0, 1, 0.0, 1.0])
def test_scores_at_both_ends_of_the_unit_interval_are_accepted_as_floats(score: float) -> None:
    parsed = parse_retrievable({**BASE, "score": score}).unwrap().score
    assert parsed == score and type(parsed) is float
