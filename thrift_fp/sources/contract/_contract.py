"""What every store's search returns and how the lifecycle sees it: the contract both share.

A store (SQLite, PostgreSQL) turns a question into `Hit` values, best first; the retrieval
definition over any store has the same shape (`FtsDefinition`) and is built the same way
(`store_definition`, failing a read with a `StoreSearchFailed`), normalises queries the same
way (`prepare_query`), refuses the same empty questions (`require_searchable`), and hands
its hits to the fit as the same records (`hit_to_retrievable`). Neither store imports the
other: both import this.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from datetime import datetime
from types import MappingProxyType
from typing import Final, Generic, TypeVar

from returns.result import Failure, Result

from thrift_fp._errors import ThriftFpError
from thrift_fp._query import normal_query
from thrift_fp._value import value
from thrift_fp.records import InvalidRetrievable, Retrievable
from thrift_fp.records._parse import parse_retrievable
from thrift_fp.retrieval import OperationContext, RetrievalDefinition
from thrift_fp.sources.ranking import collapse_copies, page_of, query_words

E = TypeVar("E", bound=ThriftFpError)

# How a heading path is spelled as one string (a hit's "heading", a passage's label).
HEADING_SEPARATOR: Final = " › "
"""How a heading path is spelled as one string (a hit's ``heading``, a passage's label)."""

ALL_TIERS = frozenset({"first-party", "third-party-public", "third-party-private"})
"""Every trust tier, as a set: what a search may keep."""


@value
class Copy:
    """A passage an answer left out because another passage holds the same text, or nearly (the
    ``.txt`` and ``.html`` renderings of one page): its id, source and content hash.

    >>> Copy("git-log.txt#3", "git-doc/git-log.txt", "h").passage_id
    'git-log.txt#3'
    """

    passage_id: str
    source: str
    content_hash: str


@value
class Hit:
    """One retrieved passage with its store's raw ``rank`` and the ``score`` in [0, 1] the ranking
    gave it; ``copies`` are the near-duplicate passages it stands for (collapsed into it: they
    take no rank, no budget and are not sent again).
    """

    passage_id: str
    source: str
    path: str
    kind: str
    trust_tier: str
    created_at: datetime
    updated_at: datetime
    content_hash: str
    tokens: int
    text: str
    rank: float
    score: float
    metadata: MappingProxyType[str, object]
    copies: tuple[Copy, ...] = ()

    @property
    def heading_path(self) -> tuple[str, ...]:
        """The headings the passage sits under, outermost first (empty when it has none).

        >>> from datetime import datetime, timezone
        >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
        >>> Hit("a.md#1", "a.md", "/a.md", "markdown", "first-party", at, at, "h", 3, "x", -2.0, 0.5,
        ...     MappingProxyType({"heading_path": ["fs", "readFile"]})).heading_path
        ('fs', 'readFile')
        """
        path = self.metadata.get("heading_path")
        return tuple(str(title) for title in path) if isinstance(path, list) else ()


FtsDefinition = RetrievalDefinition[str, Hit, tuple[Hit, ...], object]
"""A store's retrieval definition: a question in, hits out (see `run_retrieval`)."""

CANDIDATES_PER_HIT: Final = 2
"""How many candidates a search ranks per passage it returns: room for each passage's copy, so
that collapsing copies (`collapsed_hits`) still fills the answer."""


def collapsed_hits(hits: Sequence[Hit], limit: int) -> tuple[Hit, ...]:
    """The first ``limit`` of ``hits`` (best first) once near-duplicates are one passage: each
    kept hit names the copies it stands for (`Copy`), and a copy takes no place of its own. Two
    renderings of one page (the same file name in one folder, ``.html`` and ``.txt``, one trust
    tier) are copies even when their chunks were cut a few words apart.

    >>> from datetime import datetime, timezone
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> def hit(pid, text):
    ...     return Hit(pid, pid.split("#")[0], "/" + pid, "text", "first-party", at, at, pid, 9, text, 1.0, 0.5,
    ...                MappingProxyType({}))
    >>> kept = collapsed_hits([hit("log.html#2", "Show commit logs, newest first."),
    ...                        hit("log.txt#2", "  Show commit logs,\\n  newest first."), hit("add.txt#1", "Add files.")], 8)
    >>> [(h.passage_id, [c.passage_id for c in h.copies]) for h in kept]
    [('log.html#2', ['log.txt#2']), ('add.txt#1', [])]
    """
    return tuple(
        dataclasses.replace(hit, copies=(*hit.copies, *(Copy(c.passage_id, c.source, c.content_hash) for c in copies)))
        if copies else hit
        for hit, copies in collapse_copies(hits, lambda hit: hit.text, limit, lambda hit: page_of(hit.path, hit.trust_tier))
    )


def prepare_query(query: str, context: OperationContext[object]) -> str:
    """Normalise a query so that spellings the ranking cannot tell apart share one key.

    >>> prepare_query("  How does\\tSHEDDING work ", OperationContext(None))
    'how does shedding work'
    """
    return normal_query(query)


def require_searchable(query: str, context: OperationContext[object]) -> None:
    """Reject a query with no searchable word (the lifecycle turns this into ``InvalidQuery``).

    >>> try:
    ...     require_searchable("?!", OperationContext(None))
    ... except ValueError as error:
    ...     print(error)
    the query '?!' has no word to search for
    """
    if not query_words(query):
        raise ValueError(f"the query {query!r} has no word to search for")


class StoreSearchFailed(Exception, Generic[E]):
    """Raised inside a store definition's ``execute`` (the lifecycle's way to fail a read); carries
    the store's error value, whose message it reads as.

    >>> from thrift_fp.sources.contract._errors import PathNotFound
    >>> failed = StoreSearchFailed(PathNotFound("/x.db"))
    >>> str(failed), failed.error
    ('no such file or folder: /x.db', PathNotFound(path='/x.db'))
    """

    def __init__(self, error: E) -> None:
        super().__init__(error.message)
        self.error = error


def store_definition(
    search: Callable[[str], Result[tuple[Hit, ...], E]],
    failed: Callable[[E], StoreSearchFailed[E]],
    *,
    id: str,
    description: str,
    tags: tuple[str, ...],
    max_queries: int,
    authorize: Callable[[str, OperationContext[object]], None] | None,
) -> FtsDefinition:
    """The retrieval definition over a store's ``search`` (a prepared query to its hits): queries
    normalised by `prepare_query` and refused by `require_searchable`, at most ``max_queries``
    accepted per request, and a failed search raised as ``failed(error)`` for the lifecycle.

    >>> from returns.result import Success
    >>> from thrift_fp.retrieval import RetrievalState, run_retrieval
    >>> from thrift_fp.sources.contract._errors import PathNotFound
    >>> def search(query: str) -> Result[tuple[Hit, ...], PathNotFound]:
    ...     return Failure(PathNotFound(query)) if query == "gone" else Success(())
    >>> found = store_definition(search, StoreSearchFailed, id="none", description="no passages", tags=(),
    ...                          max_queries=2, authorize=None)
    >>> first = run_retrieval(found, " Shedding? ", OperationContext(None), RetrievalState())
    >>> first.result.unwrap().query
    'shedding?'
    >>> run_retrieval(found, "gone", OperationContext(None), first.state).result.failure().cause.error
    PathNotFound(path='gone')
    """

    def execute(query: str, context: OperationContext[object]) -> tuple[Hit, ...]:
        found = search(query)
        if isinstance(found, Failure):
            raise failed(found.failure())
        return found.unwrap()

    definition: FtsDefinition = RetrievalDefinition(
        id=id,
        description=description,
        tags=tags,
        prepare=prepare_query,
        assert_input=require_searchable,
        limit=lambda context: max_queries,
        execute=execute,
        sources=lambda hits: hits,
        authorize=authorize,
    )
    return definition


def hit_to_retrievable(hit: Hit) -> Result[Retrievable, InvalidRetrievable]:
    """The validated record for a hit: its passage id, text, tier, timestamps, source, kind, score
    and heading path (``fs › Promises API``, none when the passage sits under no heading).

    >>> from datetime import datetime, timezone
    >>> at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> hit = Hit("a.md#1", "a.md", "/a.md", "markdown", "first-party", at, at, "h", 3,
    ...           "Shed first.", -2.0, 2 / 3, MappingProxyType({}))
    >>> record = hit_to_retrievable(hit).unwrap()
    >>> record.id, record.trust_tier, record.kind, round(record.score, 3)
    ('a.md#1', 'first-party', 'markdown', 0.667)
    """
    return parse_retrievable(
        {
            "id": hit.passage_id,
            "content": hit.text,
            "trust_tier": hit.trust_tier,
            "created_at": hit.created_at,
            "updated_at": hit.updated_at,
            "source": hit.source,
            "kind": hit.kind,
            "score": hit.score,
            "heading": HEADING_SEPARATOR.join(hit.heading_path) or None,
        }
    )
