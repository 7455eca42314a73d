"""The validated, immutable retrieved record."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar, Final, cast

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp._value import value
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import ArtifactConstructor
from thrift_fp.records._errors import InvalidRetrievable, RecordError
from thrift_fp.records._fields import FIELDS, checked_fields
from thrift_fp.records._tier import TRUST_TIERS, TrustTier
from thrift_fp.tokens import TokenCount, Tokenizable
from thrift_fp.tokens._count import count_tokens

# The fields a check may rewrite: timestamps to UTC, an int score to a float, a missing
# (``None``) inline flag to False, as parsing reads it.
_NORMALISED: Final = ("created_at", "updated_at", "score", "inline")
# Each tier and its exact type: a str subclass (its own __eq__ and __hash__) takes the full check.
_TIER_TYPES: Final[dict[object, type]] = dict.fromkeys(TRUST_TIERS, str)


def _plainly_valid(record: Retrievable) -> bool:
    # The common record (text content, UTC timestamps, a float score or none) in a few
    # comparisons: sources build thousands. Anything else takes the full check, which gives the
    # same verdict and names every problem.
    score, source, kind, heading = record.score, record.source, record.kind, record.heading
    return (
        type(record.id) is str
        and record.id != ""
        and type(record.content) is str
        and record.content != ""
        and _TIER_TYPES.get(record.trust_tier) is type(record.trust_tier)
        and type(record.created_at) is datetime
        and record.created_at.tzinfo is UTC
        and type(record.updated_at) is datetime
        and record.updated_at.tzinfo is UTC
        and (score is None or (type(score) is float and 0.0 <= score <= 1.0))
        and (source is None or (type(source) is str and source != ""))
        and (kind is None or (type(kind) is str and kind != ""))
        and (heading is None or (type(heading) is str and heading != ""))
        and type(cast(object, record.inline)) is bool  # bool is final to mypy, not to a caller
        and record.artifact_constructor is None
    )


@value
class Retrievable:
    """A retrieved record with a deliberately chosen trust tier. Build it with ``parse_retrievable``.

    ``parse_retrievable`` reads untrusted input and returns every problem as a value. Direct
    construction is checked by the same rules (a record that exists is valid, so everything that
    takes records can rely on it) and raises ``ValueError`` listing every problem; it also stores
    the timestamps in UTC and the score as a float, as ``parse_retrievable`` does.

    >>> from thrift_fp.records import parse_retrievable
    >>> r = parse_retrievable({
    ...     "id": "kb-7", "content": "Refunds take 5 days.", "trust_tier": "first-party",
    ...     "created_at": "2024-05-01T12:00:00Z", "updated_at": 1714564800,
    ... }).unwrap()
    >>> r.trust_tier, r.inline, r.size_unknown, str(r)
    ('first-party', False, False, 'Refunds take 5 days.')
    >>> r.estimate_tokens("cl100k_base").unwrap().tokens
    7
    >>> from datetime import datetime
    >>> Retrievable("a", "b", "first-party", datetime(2020, 1, 1), r.created_at)
    Traceback (most recent call last):
    ...
    ValueError: invalid retrievable (1 problem):
      - created_at: naive datetime 2020-01-01 00:00:00 has no timezone; attach one (e.g. tzinfo=UTC)
    """

    # Thrift's text-priced shape (thrift_fp.thrift._text_priced): with str or static Tokenizable
    # content, estimate_tokens is exactly the count of that text, so a fit counts it in its batch.
    estimate_counts_content: ClassVar[bool] = True

    id: str
    content: str | Tokenizable | SpooledArtifact
    trust_tier: TrustTier
    created_at: datetime
    updated_at: datetime
    source: str | None = None
    kind: str | None = None
    score: float | None = None
    inline: bool = False
    artifact_constructor: ArtifactConstructor | None = None
    # Where in its document the record sits (a heading path, ``fs › Promises API``), if known.
    heading: str | None = None

    def __post_init__(self) -> None:
        if _plainly_valid(self):
            return
        checked = checked_fields({name: getattr(self, name) for name in FIELDS})
        if isinstance(checked, Failure):
            # Misuse of a constructor: a dataclass cannot return an error value.
            raise ValueError(InvalidRetrievable(checked.failure()).message)
        for name in _NORMALISED:
            value = checked.unwrap().get(name)
            if value is not None:
                object.__setattr__(self, name, value)

    @property
    def handle_mode(self) -> bool:
        """Spooled and not inline: the renderer shows a handle, not the body."""
        return isinstance(self.content, SpooledArtifact) and not self.inline

    @property
    def size_unknown(self) -> bool:
        """In handle mode with no size hints (derived, never stored)."""
        return isinstance(self.content, SpooledArtifact) and not self.inline and not self.content.has_size_hints

    def rendered_body(self, encoding: str = "cl100k_base") -> Result[str, RecordError]:
        """Exactly the text a renderer puts inside this record's envelope.

        >>> from thrift_fp.records import MemoryStore, SpooledArtifact, parse_retrievable
        >>> body = SpooledArtifact(MemoryStore().write("big", "x\\ny").unwrap(), 3, 2)
        >>> r = parse_retrievable({"id": "big", "content": body, "trust_tier": "third-party-private",
        ...                        "created_at": 0, "updated_at": 0}).unwrap()
        >>> r.rendered_body().unwrap()
        '[spooled artifact "big": 3 bytes, 2 lines, about 1 cl100k_base tokens (estimated from size); read it with head, tail, grep or cat]'
        """
        if isinstance(self.content, SpooledArtifact) and not self.inline:
            return Success(self.content.handle_text(call_id=self.id, encoding=encoding))
        return self.content_text()

    def estimate_tokens(self, encoding: str = "cl100k_base") -> Result[TokenCount, RecordError]:
        """Tokens this record costs: the handle text for hinted handle mode (never reads the body),
        otherwise the content's own count (streamed for spooled bodies).

        >>> from thrift_fp.records import parse_retrievable
        >>> parse_retrievable({"id": "a", "content": "hello world", "trust_tier": "first-party",
        ...                    "created_at": 0, "updated_at": 0}).unwrap().estimate_tokens().unwrap()
        TokenCount(tokens=2, encoding='cl100k_base', precision='exact')
        """
        content = self.content
        if isinstance(content, SpooledArtifact):
            if not self.inline and content.has_size_hints:
                handle: Result[TokenCount, RecordError] = count_tokens(
                    content.handle_text(call_id=self.id, encoding=encoding), encoding
                )
                return handle
            return content.estimate_tokens(encoding)
        counted: Result[TokenCount, RecordError] = (
            count_tokens(content, encoding) if isinstance(content, str) else content.estimate_tokens(encoding)
        )
        return counted

    def content_text(self) -> Result[str, RecordError]:
        """The body, materialised (a dynamic ``Tokenizable`` renders with ``ctx=None``).

        >>> from thrift_fp.records import parse_retrievable
        >>> from thrift_fp.tokens import Tokenizable
        >>> parse_retrievable({"id": "a", "content": Tokenizable("hi"), "trust_tier": "first-party",
        ...                    "created_at": 0, "updated_at": 0}).unwrap().content_text().unwrap()
        'hi'
        """
        content = self.content
        if isinstance(content, str):
            return Success(content)
        text: Result[str, RecordError] = (
            content.render(None) if isinstance(content, Tokenizable) else content.as_string()
        )
        return text

    def __str__(self) -> str:
        rendered = self.rendered_body("cl100k_base")
        if isinstance(rendered, Failure):
            return f"[retrievable {shown(self.id)} could not be rendered: {rendered.failure().message}]"
        return rendered.unwrap()
