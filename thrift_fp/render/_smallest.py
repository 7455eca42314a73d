"""The smallest useful budget: what the safety directive and one passage cost, rendered.

A budget below it renders nothing (no passage fits beside the directive), which ``serve`` and
``ask`` both report as an error naming this figure rather than answer with an empty context.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from returns.result import Failure

from thrift_fp.records import Retrievable
from thrift_fp.render._fields import DEFAULT_FIELDS, Field
from thrift_fp.render._fit import fit_and_render
from thrift_fp.thrift import ThriftOptions, WorkingSet

# A budget no answer reaches: what a passage alone costs is measured under it.
UNBOUNDED: Final = 10**9


def smallest_budget(records: Sequence[Retrievable], encoding: str, fields: Sequence[Field] = DEFAULT_FIELDS) -> int:
    """The fewest tokens that carry the safety directive and one of ``records`` (its envelope
    and block tags included, each record showing ``fields``): the smallest useful budget for them
    (`UNBOUNDED` when none renders). Exact for a fit that refills: below it no record fits alone;
    at it, shedding leaves nothing and the refill takes back the cheapest.

    >>> from datetime import datetime, timezone
    >>> from thrift_fp.records import parse_retrievable
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> record = parse_retrievable({"id": "a#1", "content": "Short.", "trust_tier": "first-party",
    ...                             "created_at": at, "updated_at": at}).unwrap()
    >>> 57 < smallest_budget([record], "cl100k_base") < 100
    True
    """
    costs = [
        fitted.unwrap().tokens
        for fitted in (
            fit_and_render(
                WorkingSet(retrievables=(record,)), UNBOUNDED, None, ThriftOptions(output_reserve=0, encoding=encoding),
                fields=fields,
            )
            for record in records
        )
        if not isinstance(fitted, Failure)
    ]
    return min(costs, default=UNBOUNDED)
