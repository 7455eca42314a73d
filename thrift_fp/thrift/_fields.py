"""Reading an item's attributes: ids, numbers, flags, ages and content text, checked."""

from __future__ import annotations

import math
import sys
from datetime import datetime

from returns.result import Failure, Result, Success

from thrift_fp.thrift._errors import InvalidItemField, ThriftError, UnmeasurableContent


def item_key(item: object, bucket: str, index: int) -> str:
    """An item's ``id`` when it has a str one, else its bucket and input position (``memory[3]``)."""
    ident = getattr(item, "id", None)
    return ident if isinstance(ident, str) else f"{bucket}[{index}]"


def bad_field(bucket: str, key: str, field: str, value: object, reason: str) -> Failure[ThriftError]:
    """The error value for an attribute of the wrong type or range."""
    return Failure(InvalidItemField(bucket, key, field, value, reason))


def beyond_float(value: int | float) -> bool:
    """An int too large for a float (finite, yet ``math.isfinite`` and ``float()`` raise on it).

    >>> beyond_float(10**400), beyond_float(10**300), beyond_float(1e308)
    (True, False, False)
    """
    return isinstance(value, int) and abs(value) > sys.float_info.max


def finite(value: int | float) -> bool:
    """A finite number that converts to a float (never raises, unlike ``math.isfinite``).

    >>> finite(3), finite(float("inf")), finite(10**400)
    (True, False, False)
    """
    return not beyond_float(value) and math.isfinite(value)


def real_number(bucket: str, key: str, field: str, value: object) -> Result[float, ThriftError]:
    """A finite int or float as a float; ``None`` is 0.

    >>> real_number("tools", "t", "shed_rank", 10**400).failure().reason
    'expected a finite number'
    """
    if value is None:
        return Success(0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not finite(value):
        return bad_field(bucket, key, field, value, "expected a finite number")
    return Success(float(value))


def flag(bucket: str, key: str, field: str, value: object, default: bool) -> Result[bool, ThriftError]:
    """A boolean attribute; ``None`` takes the default, anything but a bool is an error."""
    if value is None:
        return Success(default)
    if not isinstance(value, bool):
        return bad_field(bucket, key, field, value, "expected a bool")
    return Success(value)


def token_cost(bucket: str, key: str, value: object) -> Result[int, ThriftError]:
    """A caller-priced ``token_cost``: an int >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return bad_field(bucket, key, "token_cost", value, "expected an int >= 0")
    return Success(value)


def timestamp(bucket: str, key: str, field: str, value: object) -> Result[float, ThriftError]:
    """A sortable timestamp from an aware datetime or a number (epoch seconds or milliseconds)."""
    if isinstance(value, datetime):
        # A naive datetime is refused, as records and `thrift-fp fit` JSON refuse it: its zone
        # would be a guess (docs/surface.md, "Timestamps").
        if value.tzinfo is None or value.utcoffset() is None:
            return bad_field(bucket, key, field, value, "naive datetime has no timezone; attach one (e.g. tzinfo=UTC)")
        return Success(value.timestamp())
    return real_number(bucket, key, field, value)


def content_text(bucket: str, key: str, content: object, owner: object = None) -> Result[str, ThriftError]:
    """The text an item is measured by: a str as is, else ``str()`` of the owner (when it has its own
    ``__str__``) or of the content; only ``object.__str__``/``__repr__`` available is an error."""
    if isinstance(content, str):
        return Success(content)
    # A Retrievable-like owner with its own __str__ knows its rendered body better than its content.
    holder = owner if owner is not None and type(owner).__str__ is not object.__str__ else content
    kind = type(holder)
    if kind.__str__ is object.__str__ and kind.__repr__ is object.__repr__:
        return Failure(
            UnmeasurableContent(bucket, key, f"{kind.__name__} has no string form but object.__str__")
        )
    try:
        return Success(str(holder))
    except Exception as exc:  # noqa: BLE001 - a user __str__ may raise; keep it as the cause
        return Failure(UnmeasurableContent(bucket, key, f"str() raised {type(exc).__name__}: {exc}", exc))
