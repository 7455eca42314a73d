"""Shared example types for the retrieval example tests: a document index."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from itertools import count

from thrift_fp.retrieval import OperationContext, RetrievalDefinition


@dataclass(frozen=True, slots=True)
class Doc:
    source_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Found:
    sources: tuple[Doc, ...]


@dataclass(frozen=True, slots=True)
class App:
    can_read: bool = True
    quota: int = 2


LIBRARY = (Doc("manual", "Agent Core guide"), Doc("faq", "Agent FAQ"), Doc("notes", "release notes"))
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Boom(Exception):
    """A distinct exception, so tests can assert the exact cause."""


def ticking_clock(start: datetime = T0, step: timedelta = timedelta(seconds=1)) -> Callable[[], datetime]:
    """A deterministic clock: each call is one step later."""
    ticks = count()
    return lambda: start + step * next(ticks)


def not_blank(query: str, context: OperationContext[App]) -> None:
    if not query:
        raise ValueError("empty query")


def search(query: str, context: OperationContext[App]) -> Found:
    return Found(tuple(doc for doc in LIBRARY if query in doc.text))


def authorize(query: str, context: OperationContext[App]) -> None:
    if not context.app.can_read:
        raise PermissionError("no read access")


BASE: RetrievalDefinition[str, Doc, Found, App] = RetrievalDefinition(
    id="docs",
    description="search the document library",
    prepare=lambda query, context: query.strip(),
    assert_input=not_blank,
    limit=lambda context: context.app.quota,
    authorize=authorize,
    execute=search,
    sources=lambda result: result.sources,
    now=lambda: T0,
)


def context(app: App = App()) -> OperationContext[App]:
    return OperationContext(app)

