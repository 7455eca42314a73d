"""``index`` and ``ask`` against a ``postgresql://`` URL (``--db`` or ``THRIFT_FP_DATABASE_URL``).

The PostgreSQL store's verbs (and psycopg) are imported only when a URL is given (its lazy face
names the error types without the driver), so the SQLite path
and ``--help`` never pay for it, and a missing ``postgres`` extra is an error value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.cli._words import plural
from thrift_fp.sources import DEFAULT_INCLUDE, Assembled
from thrift_fp.sources.postgres import (
    PostgresAssembleError,
    PostgresExtraMissing,
    PostgresSourceError,
    is_database_url,
)
from thrift_fp.thrift import ThriftOptions

DATABASE_URL_ENV: Final = "THRIFT_FP_DATABASE_URL"

__all__ = ["DATABASE_URL_ENV", "ask_postgres", "index_postgres", "is_database_url"]


def index_postgres(
    url: str,
    paths: Sequence[Path],
    *,
    trust_tier: str,
    max_tokens: int,
    encoding: str,
    progress: Callable[[int, int, str], None],
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    gitignore: bool = True,
    strict: bool = False,
) -> Result[tuple[str, tuple[str, ...]], PostgresSourceError]:
    """Index into the database at ``url``: the summary line and each skipped file's problem.

    The selection (``include``, ``exclude``, ``gitignore``) and ``strict`` are the SQLite
    index's options, with the same meaning.

    >>> index_postgres("postgresql://ann:pw@/docs?host=/nonexistent", [Path(".")], trust_tier="first-party",
    ...                max_tokens=256, encoding="cl100k_base", progress=lambda *_: None).failure().message
    'cannot reach PostgreSQL at postgresql://ann:***@/docs?host=/nonexistent: ...'
    """
    try:
        from thrift_fp.sources.postgres import index_paths, open_database  # noqa: PLC0415 - loads psycopg
    except ImportError as exc:
        return Failure(PostgresExtraMissing(str(exc)))
    opened = open_database(url, create=True, pool_size=1)
    if isinstance(opened, Failure):
        return Failure(opened.failure())
    with opened.unwrap() as database:
        indexed = index_paths(
            database, paths, max_tokens=max_tokens, encoding=encoding, trust_tier=trust_tier, progress=progress,
            include=include, exclude=exclude, gitignore=gitignore, strict=strict, dense=True,
        )
    if isinstance(indexed, Failure):
        return Failure(indexed.failure())
    report = indexed.unwrap()
    files = len(report.chunked) + len(report.touched) + len(report.unchanged)
    summary = (
        f"indexed {plural(files, 'file')} into {report.database} (collection {report.collection!r}): "
        f"{len(report.chunked)} chunked, {len(report.touched)} touched, {len(report.unchanged)} unchanged, "
        f"{len(report.removed)} removed, {len(report.problems)} skipped; {plural(report.passages, 'passage')}"
    )
    return Success((summary, tuple(problem.message for problem in report.problems)))


def ask_postgres(
    url: str,
    query: Sequence[str],
    *,
    context_window: int,
    options: ThriftOptions,
    max_results: int,
    max_queries: int,
    tiers: Sequence[str],
    dense: bool = True,
) -> Result[Assembled, PostgresAssembleError]:
    """Retrieve, fit and render from the database at ``url``, as ``ask`` does from an index file
    (hybrid where the collection holds vectors of the installed model, unless ``dense`` is off).

    >>> ask_postgres("postgresql://ann:pw@/docs?host=/nonexistent", ["x"], context_window=4096,
    ...              options=ThriftOptions(), max_results=8, max_queries=4, tiers=["first-party"]).failure().message
    'cannot reach PostgreSQL at postgresql://ann:***@/docs?host=/nonexistent: ...'
    """
    try:
        from thrift_fp.sources.postgres import assemble, open_database  # noqa: PLC0415 - loads psycopg
    except ImportError as exc:
        return Failure(PostgresExtraMissing(str(exc)))
    opened = open_database(url, pool_size=1)
    if isinstance(opened, Failure):
        return Failure(opened.failure())
    with opened.unwrap() as database:
        done = assemble(
            list(query), database=database, context_window=context_window, options=options,
            max_results=max_results, max_queries=max_queries, tiers=tiers, dense=dense,
        )
    return done
