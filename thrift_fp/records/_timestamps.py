"""Reading a timestamp field into a timezone-aware UTC ``datetime``.

Accepted forms:

- an ISO-8601 string with a UTC offset (``datetime.fromisoformat``; a trailing ``Z`` works);
- a Unix epoch ``int``/``float``: ``abs(value) >= 1e11`` is read as **milliseconds**, anything
  smaller as **seconds**. 1e11 seconds is the year 5138 while 1e11 milliseconds is 1973-03-03, so
  every plausible seconds value is below the threshold and every millisecond value after March 1973
  is above it; only millisecond values before 1973 are misread (as seconds);
- an aware ``datetime`` (converted to UTC).

Rejected: naive ``datetime`` values and offset-less strings (their zone would be a guess), ``bool``
(a Python ``int`` by accident, never a time), NaN and infinities, and anything else.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown, shown_exception

MILLISECONDS_THRESHOLD: Final = 1e11
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def parse_timestamp(value: object) -> Result[datetime, str]:
    """``value`` as an aware UTC datetime, or the reason it is not a timestamp.

    >>> parse_timestamp("2024-05-01T12:00:00Z").unwrap()
    datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)
    >>> parse_timestamp(1714564800).unwrap() == parse_timestamp(1714564800000).unwrap()
    True
    >>> parse_timestamp(datetime(2024, 5, 1)).failure()
    'naive datetime 2024-05-01 00:00:00 has no timezone; attach one (e.g. tzinfo=UTC)'
    """
    if isinstance(value, bool):
        return Failure(f"a bool ({value}) is not a timestamp")
    if isinstance(value, datetime):
        return _from_datetime(value)
    if isinstance(value, int | float):
        return _from_epoch(value)
    if isinstance(value, str):
        return _from_iso(value)
    return Failure(
        f"expected an ISO-8601 string, Unix epoch seconds/milliseconds or an aware datetime, "
        f"got {type(value).__name__} {shown(value)}"
    )


def _from_datetime(value: datetime) -> Result[datetime, str]:
    if value.tzinfo is None or value.utcoffset() is None:
        return Failure(f"naive datetime {datetime.isoformat(value, ' ')} has no timezone; attach one (e.g. tzinfo=UTC)")
    try:
        return Success(value.astimezone(UTC))
    except (OverflowError, ValueError) as exc:
        return Failure(f"datetime {datetime.isoformat(value, ' ')} cannot be expressed in UTC: {shown_exception(exc)}")


def _from_epoch(value: int | float) -> Result[datetime, str]:
    if isinstance(value, float) and not math.isfinite(value):
        return Failure(f"epoch value {shown(value)} is not a finite number")
    milliseconds = abs(value) >= MILLISECONDS_THRESHOLD
    try:
        offset = timedelta(milliseconds=value) if milliseconds else timedelta(seconds=value)
        return Success(_EPOCH + offset)
    except OverflowError as exc:
        unit = "milliseconds" if milliseconds else "seconds"
        return Failure(f"epoch value {shown(value)} ({unit}) is out of the representable range")


def _from_iso(value: str) -> Result[datetime, str]:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return Failure(f"{shown(value)} is not an ISO-8601 timestamp (example: '2024-05-01T12:00:00Z')")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return Failure(f"{shown(value)} has no UTC offset, so its zone would be a guess; add 'Z' or '+00:00'")
    return _from_datetime(parsed)
