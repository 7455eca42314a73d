"""The validated, immutable retrieved record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from returns.result import Failure, Result, Success

from thrift_fp._shown import shown
from thrift_fp.records._artifact import SpooledArtifact
from thrift_fp.records._constructor import ArtifactConstructor
from thrift_fp.records._errors import RecordError
from thrift_fp.records._tier import TrustTier
from thrift_fp.tokens import TokenCount, Tokenizable, count_tokens


@dataclass(frozen=True, slots=True)
class Retrievable:
    """A retrieved record with a deliberately chosen trust tier. Build it with ``parse_retrievable``.

    Direct construction skips validation; ``parse_retrievable`` checks every rule and converts
    timestamps to aware UTC.

    >>> from thrift_fp.records import parse_retrievable
    >>> r = parse_retrievable({
    ...     "id": "kb-7", "content": "Refunds take 5 days.", "trust_tier": "first-party",
    ...     "created_at": "2024-05-01T12:00:00Z", "updated_at": 1714564800,
    ... }).unwrap()
    >>> r.trust_tier, r.inline, r.size_unknown, str(r)
    ('first-party', False, False, 'Refunds take 5 days.')
    >>> r.estimate_tokens("cl100k_base").unwrap().tokens
    7
    """

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
