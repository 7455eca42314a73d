"""The bulk paths of a fit (the common case of a whole bucket decided in C-level passes
instead of a Python-level step per item) give exactly what the per-item loops give: the same kept
set, trace and counts, or the same error value, for clean sets and for sets with one item that
leaves the common case (valid or not)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import timedelta, timezone
from typing import Any, NamedTuple, cast

from hypothesis import given, settings, strategies as st
from returns.result import Failure, Result

from properties.thrift_model import AT, REAL_ENCODINGS, WORDS, Case, cases
from thrift_fp.records import Retrievable
from thrift_fp.thrift import Fitted, Message, ThriftError, WorkingRetrievable, WorkingSet, subtract_to_fit
from thrift_fp.thrift import _estimate, _measure, _passes
from thrift_fp.tokens import TokenCounts


@contextmanager
def per_item_only() -> Iterator[None]:
    """Every bulk path answers "not the common case", so the per-item loops do all the work."""
    swaps: list[tuple[Any, str, Any]] = [
        (_passes._Bulk, "clean_keys", staticmethod(lambda items: None)),
        (_estimate._Bulk, "none_to_call", staticmethod(lambda items: False)),
        (_estimate._Bulk, "plain_counts", staticmethod(lambda raw: False)),
        (_estimate._Bulk, "one_method", staticmethod(lambda items: False)),
        (_measure._Collector, "_bulk_messages", lambda self, items: False),
        (_measure._Collector, "_bulk_retrievables", lambda self, items, keys, estimates: False),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in swaps]
    for owner, name, value in swaps:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


# One item that leaves the common case: valid (the loops' checked helpers accept it) or invalid.
ODD_ONES = (
    "none", "utc-lookalike", "int-score", "nan-score", "int-size-unknown", "size-unknown",
    "anonymous", "duplicate-id", "str-summary", "int-pair", "naive", "priced",
)


class _Priced:
    """A retrievable with its own synchronous estimate (a plain int, or ``estimate`` itself; an
    exception is raised). Slotted, as a record type of its own usually is: the whole bucket then
    takes the one-pass estimator call (`_estimate._Bulk.one_method`)."""

    __slots__ = ("content", "id", "estimate", "score")

    def __init__(self, content: str, ident: str, estimate: object = None, score: float | None = None) -> None:
        self.content, self.id, self.estimate, self.score = content, ident, estimate, score

    def estimate_tokens(self, encoding: str) -> object:
        if isinstance(self.estimate, Exception):
            raise self.estimate
        return len(self.content) // 3 if self.estimate is None else self.estimate


def _as(kind: str, item: Any) -> Any:
    if kind == "plain":
        return WorkingRetrievable(str(item.content), id=item.id, score=item.score)
    # A record's text is never empty (construction checks it): a space, on both paths alike.
    return Retrievable(str(item.id), str(item.content) or " ", "first-party", AT, AT, score=item.score)


@dataclass(frozen=True)
class _Loose:
    """An item of any field values: the package's own dataclasses are type-checked under the
    suite, and these fields are deliberately of the wrong type."""

    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None


def _loose(item: Any, **changes: Any) -> _Loose:
    return _Loose({**{name: getattr(item, name) for name in item.__dataclass_fields__}, **changes})


def _odd_message(message: Any, odd: str) -> Any:
    if odd == "utc-lookalike":
        return replace(message, created_at=message.created_at.astimezone(timezone(timedelta(0))))
    if odd == "naive":
        return _loose(message, created_at=message.created_at.replace(tzinfo=None))
    if odd == "str-summary":
        return _loose(message, summary="yes")
    if odd == "int-pair":
        return _loose(message, pair_id=3)
    return message


def _odd_retrievable(item: Any, odd: str, spot: int, previous: Any) -> Any:
    plain = isinstance(item, WorkingRetrievable)
    if odd == "int-score":
        return _loose(item, score=1)
    if odd == "nan-score":
        # A record cannot hold a NaN score (construction checks it): an object of its fields can.
        return replace(item, score=float("nan")) if plain else _loose(item, score=float("nan"))
    if odd in ("int-size-unknown", "size-unknown") and plain:
        return _loose(item, size_unknown=1) if odd == "int-size-unknown" else replace(item, size_unknown=True)
    if odd == "anonymous" and plain:
        return replace(item, id=None)
    if odd == "duplicate-id" and previous is not None:
        return replace(item, id=previous.id)
    if odd == "priced":
        return _Priced(str(item.content), f"priced{spot}")
    return item


def _working_set(case: Case, kind: str, odd: str, at: int) -> WorkingSet:
    messages = list(case.ws.messages)
    items = [_as(kind, item) for item in case.ws.retrievables]
    if messages:
        spot = at % len(messages)
        messages[spot] = _odd_message(messages[spot], odd)
    if items:
        spot = at % len(items)
        items[spot] = _odd_retrievable(items[spot], odd, spot, items[spot - 1] if spot else None)
    return replace(case.ws, messages=tuple(messages), retrievables=tuple(items))


def _outcome(result: Result[Fitted, ThriftError]) -> object:
    if isinstance(result, Failure):
        error = result.failure()
        return type(error), error.message
    fitted = result.unwrap()
    return fitted.working_set, fitted.trace, len(fitted.counts), fitted.counts.reused


@settings(max_examples=80)
@given(
    st.sampled_from((WORDS, *REAL_ENCODINGS)).flatmap(lambda encoding: cases(encoding=encoding, most=15)),
    st.sampled_from(("plain", "records")),
    st.sampled_from(ODD_ONES),
    st.integers(0, 1_000),
    st.booleans(),
)
def test_bulk_paths_give_the_per_item_result(case: Case, kind: str, odd: str, at: int, warm: bool) -> None:
    ws = _working_set(case, kind, odd, at)
    prior = subtract_to_fit(ws, case.window, case.relevant, case.options)
    counts = prior.unwrap().counts if warm and not isinstance(prior, Failure) else TokenCounts()
    bulk = subtract_to_fit(ws, case.window, case.relevant, case.options, counts=counts)
    with per_item_only():
        loops = subtract_to_fit(ws, case.window, case.relevant, case.options, counts=counts)
    assert _outcome(bulk) == _outcome(loops)


@settings(max_examples=40)
@given(
    cases(most=15),
    st.sampled_from((None, -1, True, 2.5, "3", 0, ValueError("estimator down"))),
    st.integers(0, 1_000),
)
def test_self_priced_buckets_give_the_per_item_result(case: Case, wrong: object, at: int) -> None:
    """Every retrievable prices itself with a plain int, except (maybe) one whose estimate does
    not count (then its text is measured) or whose estimator raises (the error names it)."""
    # At least three, so the odd one is often not the first (its position is in the error).
    pads = tuple(WorkingRetrievable("w " * n, id=f"pad{n}") for n in range(1, 4))
    items = (*case.ws.retrievables, *pads[len(case.ws.retrievables):])
    spot = at % len(items)
    priced = tuple(
        _Priced(str(item.content), str(getattr(item, "id", i)), wrong if i == spot else None, getattr(item, "score", None))
        for i, item in enumerate(items)
    )
    ws = replace(case.ws, retrievables=priced)
    bulk = subtract_to_fit(ws, case.window, case.relevant, case.options)
    with per_item_only():
        loops = subtract_to_fit(ws, case.window, case.relevant, case.options)
    assert _outcome(bulk) == _outcome(loops)


class _MessageRow(NamedTuple):
    """A message as a named tuple, its fields in another order than `Message`'s: the bulk path
    reads such a bucket by position, in one transposition (`_measure._transposed`)."""

    token_cost: Any
    pair_id: Any
    id: Any
    role: Any
    content: Any
    created_at: Any
    summary: Any
    ephemeral: Any


class _ComputedSummary(_MessageRow):
    """A named tuple whose ``summary`` is computed (the opposite of the field it holds): an
    attribute that is not a plain field is read as an attribute, never by position."""

    __slots__ = ()

    @property
    def summary(self) -> Any:
        return not tuple.__getitem__(self, 6)


def _fit_outcome(result: Result[Fitted, ThriftError]) -> object:
    if isinstance(result, Failure):
        error = result.failure()
        return type(error), error.message
    fitted = result.unwrap()
    return [message.id for message in fitted.working_set.messages], fitted.trace


@given(cases(most=30), st.booleans())
def test_messages_as_named_tuples_fit_as_the_same_messages(case: Case, computed: bool) -> None:
    """A bucket of named-tuple messages (read by position) fits exactly as the same messages as
    `Message` objects: the same kept ids and trace, or the same error value; a field a subclass
    computes is read as the attribute it is."""
    kind = _ComputedSummary if computed else _MessageRow
    # The cases' messages are `Message` objects.
    messages = cast(tuple[Message, ...], case.ws.messages)
    rows = tuple(
        kind(m.token_cost, m.pair_id, m.id, m.role, m.content, m.created_at, m.summary, m.ephemeral)
        for m in messages
    )
    same = tuple(replace(m, summary=not m.summary) if computed else m for m in messages)
    as_rows = subtract_to_fit(replace(case.ws, messages=rows), case.window, case.relevant, case.options)
    as_messages = subtract_to_fit(replace(case.ws, messages=same), case.window, case.relevant, case.options)
    assert _fit_outcome(as_rows) == _fit_outcome(as_messages)


def test_a_short_named_tuple_is_not_read_by_position() -> None:
    """``tuple.__new__`` can make a named tuple short of its fields; a bucket holding one is not
    transposed (``zip`` would stop at it silently)."""
    whole = _MessageRow(None, None, "m0", "user", "hi", AT, False, False)
    short = tuple.__new__(_MessageRow, (None, None, "m1"))
    assert _measure._transposed([whole, whole]) is not None
    assert _measure._transposed([whole, short]) is None


@settings(max_examples=50)
@given(
    st.integers(1, 6), st.integers(0, 7), st.integers(0, 5),
    st.sampled_from(["messages", "retrievables"]),
)
def test_a_short_named_tuple_anywhere_is_a_malformed_item_never_an_exception(
    count: int, width: int, at: int, bucket: str
) -> None:
    # Not read by position, and not read as a whole tuple either: its missing field is an error
    # value naming the item (a caller's object, as any that raises on a read).
    whole = _MessageRow(None, None, "m", "user", "hi", AT, False, False)
    short = tuple.__new__(_MessageRow, whole[:width])
    rows: list[Any] = [whole._replace(id=f"m{index}") for index in range(count)]
    place = min(at, count)
    rows.insert(place, short)
    if bucket == "messages":
        outcome = subtract_to_fit(WorkingSet(messages=tuple(rows)), 10_000)
    else:
        outcome = subtract_to_fit(WorkingSet(retrievables=tuple(rows)), 10_000)
    if bucket == "retrievables" and width > _MessageRow._fields.index("content"):
        # A retrievable reads its content and a few optional fields (not all of these): whatever
        # it reads, the outcome is a value, never an exception.
        assert isinstance(outcome, Result)
        return
    assert isinstance(outcome, Failure)
    error = outcome.failure()
    assert type(error).__name__ == "MalformedItem" and error.index == place, error
