"""Retrieved passages as trust-tiered `Retrievable` records, fitted and rendered in envelopes.

The adapter cannot know where a document came from, so the trust tier is the caller's to name and
defaults to ``third-party-private``: an envelope for untrusted content, and the cautious guess
(a private document labelled public could be quoted where it should not be; the reverse costs
nothing). Passage ``i`` gets ``created_at = updated_at = 1970-01-01 + i microseconds``, the same
ordinal as messages (input order stands for age; no wall-clock time is invented), so third-party
envelopes render in input order. ``source`` is the passage's source string when it has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.adapters._b_errors import AdapterError, ItemKind, MalformedItem, RenderRejected
from thrift_fp.adapters._b_fit import PassageItem
from thrift_fp.records import Retrievable, TrustTier, parse_retrievable
from thrift_fp.render import NonceMode, fit_and_render
from thrift_fp.thrift import ThriftOptions, ThriftTrace, WorkingSet

_ORIGIN: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TICK: Final = timedelta(microseconds=1)
DEFAULT_TIER: Final[TrustTier] = "third-party-private"


@dataclass(frozen=True, slots=True)
class RenderedPassages:
    """The rendered text, its exact tokens, the surviving input positions (input order), the trace."""

    text: str
    tokens: int
    kept: tuple[int, ...]
    trace: ThriftTrace


def passage_records(
    passages: Sequence[PassageItem], sources: Sequence[str | None], trust_tier: TrustTier, kind: ItemKind
) -> Result[tuple[Retrievable, ...], AdapterError]:
    """Validated records for the passages (the first invalid field is an error naming its index).

    >>> records = passage_records([PassageItem("Refunds take 5 days.", "kb-1", 0.8)], ["faq.md"],
    ...                           "third-party-public", "document").unwrap()
    >>> (records[0].id, records[0].trust_tier, records[0].source, records[0].created_at.year)
    ('kb-1', 'third-party-public', 'faq.md', 1970)
    >>> passage_records([PassageItem("", "e", None)], [None], "first-party", "node").failure().message
    'node 0: invalid content (must not be an empty string)'
    """
    records: list[Retrievable] = []
    for index, (passage, source) in enumerate(zip(passages, sources, strict=True)):
        at = _ORIGIN + _TICK * index
        parsed = parse_retrievable({
            "id": passage.key, "content": passage.text, "trust_tier": trust_tier, "source": source,
            "score": passage.score, "created_at": at, "updated_at": at,
        })
        if isinstance(parsed, Failure):
            problem = parsed.failure().problems[0]
            return Failure(MalformedItem(kind, index, problem.field, problem.reason))
        records.append(parsed.unwrap())
    return Success(tuple(records))


def render_passages(
    passages: Sequence[PassageItem],
    sources: Sequence[str | None],
    max_tokens: int,
    trust_tier: TrustTier,
    nonce: NonceMode,
    encoding: str,
    kind: ItemKind,
) -> Result[RenderedPassages, AdapterError]:
    """Fit the passages priced as rendered (envelopes included) and render the survivors; the
    text's exact count is within ``max_tokens`` whenever the trace says it fits.

    >>> from thrift_fp.render import KeyedNonce
    >>> done = render_passages([PassageItem("Refunds take 5 days.", "kb-1", 0.8),
    ...                         PassageItem("Rex the dog. " * 80, "kb-2", 0.1)], [None, None], 250,
    ...                        "third-party-public", KeyedNonce(bytes(32)), "cl100k_base", "document").unwrap()
    >>> done.kept, done.tokens <= 250, "Refunds take 5 days." in done.text
    ((0,), True, True)
    """
    built = passage_records(passages, sources, trust_tier, kind)
    if isinstance(built, Failure):
        return Failure(built.failure())
    records = built.unwrap()
    options = ThriftOptions(output_reserve=0, encoding=encoding)
    done = fit_and_render(WorkingSet(retrievables=records), max_tokens, options=options, nonce=nonce)
    if isinstance(done, Failure):
        return Failure(RenderRejected(done.failure()))
    fitted = done.unwrap()
    position = {record.id: index for index, record in enumerate(records)}
    kept = tuple(sorted(position[record.id] for record in fitted.records))
    return Success(RenderedPassages(fitted.text, fitted.rendered.tokens, kept, fitted.trace))
