"""Where a server's passages come from: an index file, or (`thrift_fp.serve._postgres`) a
PostgreSQL database. Each builds the lifecycle's search definition for the tiers asked."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from thrift_fp._value import value
from thrift_fp.serve._handshake import corpus_name
from thrift_fp.serve._surroundings import sqlite_surroundings
from thrift_fp.sources import FtsDefinition, Hit
from thrift_fp.sources.sqlite import fts5_definition, search_ranking


@runtime_checkable
class Backend(Protocol):
    """A source of passages for the tools: ``definition(tiers, max_results, max_calls)`` is the
    retrieval (one run per question, at most ``max_calls`` per session) over those tiers."""

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        """The retrieval definition over ``tiers``."""
        ...

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        """The passages around ``hit`` in its document, with their distance (negative: before)."""
        ...

    def describe(self) -> str:
        """What the server reads, named for agents (its instructions, the tool descriptions):
        the corpus, never a path on the operator's disk nor a database's address."""
        ...

    def ranking(self) -> dict[str, object]:
        """Which ranking a search runs now, and why (`thrift_fp.sources.Ranking.as_json`)."""
        ...


@value
class SqliteBackend:
    """An FTS5 index file (``thrift-fp index``), searched by `fts5_definition`: hybrid where
    the index holds vectors of the installed model, as ``ask`` and `assemble` rank, unless
    ``dense`` is off (``serve --lexical``). ``name`` is what agents are told they search (by
    default the index file's name: never its folder, a path on the operator's disk).

    >>> backend = SqliteBackend(Path("/home/ann/work/docs.db"))
    >>> backend.definition(("first-party",), 8, 4).id, backend.describe()
    ('fts5-search', "the index 'docs.db'")
    """

    database: Path
    dense: bool = True
    name: str = ""

    def definition(self, tiers: tuple[str, ...], max_results: int, max_calls: int) -> FtsDefinition:
        """The FTS5 search over ``tiers``."""
        return fts5_definition(
            self.database, max_results=max_results, max_queries=max_calls, tiers=tiers, dense=self.dense
        )

    def ranking(self) -> dict[str, object]:
        """The ranking `search_ranking` names for the index (none when it cannot be read).

        >>> SqliteBackend(Path("docs.db"), dense=False).ranking()
        {}
        """
        return search_ranking(self.database, self.dense).map(lambda ranking: ranking.as_json()).value_or({})

    def surroundings(self, hit: Hit) -> tuple[tuple[int, Hit], ...]:
        """The passages around ``hit`` in its file (`sqlite_surroundings`)."""
        return sqlite_surroundings(self.database, hit)

    def describe(self) -> str:
        """The corpus's name for agents: ``name``, else the index file's name (no folder)."""
        return self.name or corpus_name(self.database)
