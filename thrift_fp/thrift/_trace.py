"""What a fit did: one `BucketTrace` per pass, summed up in a `ThriftTrace`."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Literal

from thrift_fp._value import value

Bucket = Literal[
    "retrievables-size-unknown",
    "thoughts",
    "tools",
    "image",
    "tool-calls",
    "retrievables",
    "memories",
    "messages",
    "thoughts-shed",
    "tools-shed",
]
"""The name of one pass in the trace: the bucket it measured or shed from."""

@value
class BucketTrace:
    """One pass: the bucket's tokens and item count before and after, and the ids it removed
    (or hid, for tools) in removal order.

    >>> BucketTrace("image", 765, 0, 1, 0, "over budget: image dropped", ("diagram.png",)).as_dict()["ids"]
    ['diagram.png']
    """

    bucket: Bucket
    before_tokens: int
    after_tokens: int
    before_count: int
    after_count: int
    note: str
    ids: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready dict.

        >>> BucketTrace("tools", 10, 4, 2, 1, "shortlist", ("b",)).as_dict()  # the trace's JSON shape
        {'bucket': 'tools', 'before_tokens': 10, 'after_tokens': 4, 'before_count': 2, 'after_count': 1, 'note': 'shortlist', 'ids': ['b']}
        """
        return _as_dict(self)


@value
class RefillTrace:
    """The refill step for one bucket: its tokens and item count after shedding and after refill,
    and the ids it re-admitted, in admission order.

    >>> RefillTrace("retrievables", 300, 369, 4, 5, ("kb-7",)).as_dict()["ids"]
    ['kb-7']
    """

    bucket: Literal["retrievables", "memories"]
    before_tokens: int
    after_tokens: int
    before_count: int
    after_count: int
    ids: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready dict.

        >>> RefillTrace("memories", 0, 5, 0, 1, ("k1",)).as_dict()  # the trace's JSON shape
        {'bucket': 'memories', 'before_tokens': 0, 'after_tokens': 5, 'before_count': 0, 'after_count': 1, 'ids': ['k1']}
        """
        return _as_dict(self)


def _as_dict(step: BucketTrace | RefillTrace) -> dict[str, object]:
    """A step's fields in their order, its ids as a list (JSON has no tuple)."""
    return {
        field.name: list(item) if isinstance(item := getattr(step, field.name), tuple) else item
        for field in fields(step)
    }


@value
class ThriftTrace:
    """The whole fit. ``total_before`` is the measured input (size-unknown retrievables are never
    measured and count 0); ``total_after`` is what remains; ``refused`` means the protected floor
    alone exceeds the budget (then ``fits`` is False). ``buckets`` holds the size-unknown, thought
    strip and tool shortlist passes, then the shedding passes in ``shed_order``'s order;
    ``refilled`` the refill step per bucket (empty when refill is off).

    >>> trace = ThriftTrace(4096, 1434, 2662, 100, 100, True, False, ())
    >>> trace.to_json()
    '{"context_window": 4096, "reserve": 1434, "budget": 2662, "total_before": 100, "total_after": 100, "fits": true, "refused": false, "shed_order": "agent", "buckets": [], "refilled": []}'
    """

    context_window: int | float
    reserve: int
    budget: int
    total_before: int
    total_after: int
    fits: bool
    refused: bool
    buckets: tuple[BucketTrace, ...]
    shed_order: str = "agent"
    refilled: tuple[RefillTrace, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready dict.

        >>> ThriftTrace(10, 4, 6, 0, 0, True, False, ()).as_dict()  # the trace's JSON shape
        {'context_window': 10, 'reserve': 4, 'budget': 6, 'total_before': 0, 'total_after': 0, 'fits': True, 'refused': False, 'shed_order': 'agent', 'buckets': [], 'refilled': []}
        """
        return {
            "context_window": self.context_window,
            "reserve": self.reserve,
            "budget": self.budget,
            "total_before": self.total_before,
            "total_after": self.total_after,
            "fits": self.fits,
            "refused": self.refused,
            "shed_order": self.shed_order,
            "buckets": [bucket.as_dict() for bucket in self.buckets],
            "refilled": [step.as_dict() for step in self.refilled],
        }

    def to_json(self) -> str:
        """The trace as a JSON string.

        >>> ThriftTrace(10, 4, 6, 0, 0, True, False, ()).to_json()[:37]
        '{"context_window": 10, "reserve": 4, '
        """
        return json.dumps(self.as_dict())
