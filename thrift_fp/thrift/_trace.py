"""What a fit did: one `BucketTrace` per pass, summed up in a `ThriftTrace`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

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

@dataclass(frozen=True, slots=True)
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

        >>> BucketTrace("tools", 10, 4, 2, 1, "shortlist", ("b",)).as_dict()["after_tokens"]
        4
        """
        return {
            "bucket": self.bucket,
            "before_tokens": self.before_tokens,
            "after_tokens": self.after_tokens,
            "before_count": self.before_count,
            "after_count": self.after_count,
            "note": self.note,
            "ids": list(self.ids),
        }


@dataclass(frozen=True, slots=True)
class ThriftTrace:
    """The whole fit. ``total_before`` is the measured input (size-unknown retrievables are never
    measured and count 0); ``total_after`` is what remains; ``refused`` means the protected floor
    alone exceeds the budget (then ``fits`` is False).

    >>> trace = ThriftTrace(4096, 1434, 2662, 100, 100, True, False, ())
    >>> trace.to_json()
    '{"context_window": 4096, "reserve": 1434, "budget": 2662, "total_before": 100, "total_after": 100, "fits": true, "refused": false, "buckets": []}'
    """

    context_window: int | float
    reserve: int
    budget: int
    total_before: int
    total_after: int
    fits: bool
    refused: bool
    buckets: tuple[BucketTrace, ...]

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready dict.

        >>> ThriftTrace(10, 4, 6, 0, 0, True, False, ()).as_dict()["budget"]
        6
        """
        return {
            "context_window": self.context_window,
            "reserve": self.reserve,
            "budget": self.budget,
            "total_before": self.total_before,
            "total_after": self.total_after,
            "fits": self.fits,
            "refused": self.refused,
            "buckets": [bucket.as_dict() for bucket in self.buckets],
        }

    def to_json(self) -> str:
        """The trace as a JSON string.

        >>> ThriftTrace(10, 4, 6, 0, 0, True, False, ()).to_json()[:37]
        '{"context_window": 10, "reserve": 4, '
        """
        return json.dumps(self.as_dict())
