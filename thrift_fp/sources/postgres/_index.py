"""Indexing into PostgreSQL: incremental by content hash, COPY in batches, one transaction each.

A run reads only the files whose size, modification time or tier changed (the SQLite
source's rules, see `_postgres_files`), chunks them outside any transaction, and writes
them ``batch_files`` at a time: each batch takes the collection's advisory lock, looks at
the stored hashes again (another indexer may have written them meanwhile), replaces the
passages of the files that really changed with one ``COPY``, and commits. Files gone from
a named folder are pruned in the first transaction. An interrupted run (a killed process,
a dropped connection) leaves whole batches behind, never half a file: the next run finishes
the rest. Files that cannot be read are skipped and reported with their reason, as in SQLite,
and lose what was indexed for them before (what the collection holds is what the files say
now); ``strict=True`` runs the whole run in one transaction and commits nothing when any file
is a problem.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import psycopg
from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedPathsArg, CheckedStringsArg
from thrift_fp._value import value
from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources.documents import (
    DEFAULT_INCLUDE,
    DEFAULT_MAX_TOKENS,
    MAX_PASSAGE_TOKENS,
    MIN_PASSAGE_TOKENS,
    checked_selection,
    select_checked,
)
from thrift_fp.sources.contract import (
    IndexProblems,
    IndexSettingsMismatch,
    InvalidChunkBound,
    InvalidTrustTier,
    SkippedFile,
    SourceError,
)
from thrift_fp.sources.postgres._errors import (
    ConnectionLost,
    IndexInterrupted,
    PostgresSourceError,
    UnknownTextSearchConfig,
    scrub,
)
from thrift_fp.sources.postgres._files import (
    Document,
    Found,
    Stored,
    free_label,
    gone,
    heading_path,
    read_document,
    storable_ns,
)
from thrift_fp.sources.postgres._store import DEFAULT_COLLECTION, PostgresDatabase, ensure_schema, query_error
from thrift_fp.sources.postgres._search import search_matched
from thrift_fp.sources.ranking import analyze_fields, default_analyzer
from thrift_fp.sources.dense import MATCH_FLOOR, DenseChoice, Embedder, calibrate, index_embedder
from thrift_fp.sources.postgres._dense import forget_vectors_model, record_floor, stored_floor, stored_model, sync_vectors
from thrift_fp.tokens._encoding import get_encoding
from thrift_fp.sources.postgres._connection import Connection as _Connection

Progress = Callable[[int, int, str], None]
DEFAULT_TEXT_SEARCH_CONFIG: Final = "english"
"""The PostgreSQL text search configuration a new collection uses unless told otherwise."""
DEFAULT_BATCH_FILES: Final = 64
"""How many files an index run takes per batch unless told otherwise (``batch_files=``)."""

# What a run adds up, batch by batch: the chunked paths, the touched paths, the skipped files.
_Outcome = tuple[list[str], list[str], list[SkippedFile]]

_COPY: Final = (
    "COPY thrift_fp_passages (collection, path, passage_id, source, ordinal, kind, trust_tier, created_at,"
    " updated_at, content_hash, tokens, heading_path, text, metadata, body_terms, heading_terms, trail_terms,"
    " body_length, heading_length, trail_length, lexicon) FROM STDIN"
)


@value
class PostgresIndexReport:
    """What one run did, by file (each path in exactly one of the first five tuples), the files it
    skipped with their reasons (``skipped``, as in the SQLite report), the collection's passage
    count and the batches committed."""

    database: str
    collection: str
    chunked: tuple[str, ...]
    touched: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    skipped: tuple[SkippedFile, ...]
    passages: int
    batches: int
    # Passage texts embedded by the run (only those whose vectors the collection lacked).
    embedded: int = 0

    @property
    def problems(self) -> tuple[SourceError, ...]:
        """The reasons of ``skipped``, one per skipped file."""
        return tuple(skipped.error for skipped in self.skipped)


def index_paths(
    database: PostgresDatabase,
    paths: CheckedPathsArg,
    *,
    collection: str = DEFAULT_COLLECTION,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    encoding: str = "cl100k_base",
    trust_tier: str = "first-party",
    text_search_config: str = DEFAULT_TEXT_SEARCH_CONFIG,
    batch_files: int = DEFAULT_BATCH_FILES,
    progress: Progress | None = None,
    include: CheckedStringsArg = DEFAULT_INCLUDE,
    exclude: CheckedStringsArg = (),
    gitignore: bool = True,
    strict: bool = False,
    dense: DenseChoice = False,
) -> Result[PostgresIndexReport, PostgresSourceError]:
    """Index files and folders into ``collection``; ``trust_tier`` (the operator's) is stored on
    every passage, whatever the documents say. ``text_search_config`` is fixed by the first run
    of a collection, like ``max_tokens`` and ``encoding``. ``progress(done, total, path)`` is
    called after each file that had to be read. Inside folders, the files ``include`` picks less
    ``exclude`` and what ``.gitignore`` files ignore, as in the SQLite source. Files that cannot
    be indexed are listed in the report's ``skipped``; with ``strict=True`` any such file fails
    the run (``IndexProblems``) and the collection stays as it was. ``dense`` (an embedder, or
    True for the ``[dense]`` extra's model when installed) embeds new or changed passages too.

    >>> import os, tempfile, pathlib
    >>> from thrift_fp.sources.postgres import open_database
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("# Budget\\n\\nShed the lowest score first.")
    >>> os.utime(root / "a.md", (1e9, 1e9))  # an old file: not modified while being indexed
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as db:
    ...     first = index_paths(db, [root], collection=str(root)).unwrap()
    ...     again = index_paths(db, [root], collection=str(root)).unwrap()
    >>> len(first.chunked), first.passages, len(again.unchanged), again.batches
    (1, 1, 1, 0)
    """
    # One path (or pattern) is one item, not its letters; every element is checked to be one.
    checked = checked_selection(paths, include, exclude)
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    roots, wanted, unwanted = checked.unwrap()
    if max_tokens < MIN_PASSAGE_TOKENS:
        return Failure(InvalidChunkBound(max_tokens, MIN_PASSAGE_TOKENS))
    # A bound past any passage behaves as the largest one, and stays a printable setting.
    max_tokens = min(max_tokens, MAX_PASSAGE_TOKENS)
    if trust_tier not in TRUST_TIERS:
        return Failure(InvalidTrustTier(trust_tier, TRUST_TIERS))
    resolved: Result[object, PostgresSourceError] = get_encoding(encoding)
    if isinstance(resolved, Failure):
        return resolved
    found = select_checked(roots, wanted, unwanted, gitignore)
    if isinstance(found, Failure):
        return Failure(found.failure())
    selection = found.unwrap()
    embedder = index_embedder(dense)
    if isinstance(embedder, Failure):
        return Failure(embedder.failure())
    run = _Run(database, roots, selection.files, collection, max_tokens, encoding, trust_tier, progress, strict)
    # Entries the walk could not take (broken links, FIFOs, undecodable names) are problems too.
    run.walk_problems = selection.skipped
    run.embedder = embedder.unwrap()
    try:
        with database.pool.connection() as connection:
            indexed = run.index(connection, text_search_config, max(1, batch_files))
        if run.embedder is None or isinstance(indexed, Failure):
            return indexed
        # Outside the run's connection: the probes' searches take their own from the pool.
        calibrated = _calibrate(database, collection, run.embedder)
        return indexed if isinstance(calibrated, Success) else Failure(calibrated.failure())
    except psycopg.Error as exc:
        if isinstance(exc, psycopg.OperationalError) and run.started:
            return Failure(ConnectionLost(database.url, run.committed, run.total_batches, _scrubbed(database, exc)))
        return Failure(query_error(exc, database.url, database.password, f"index collection {collection!r}"))


def _calibrate(database: PostgresDatabase, collection: str, embedder: Embedder) -> Result[None, PostgresSourceError]:
    # The collection's no-match floor, measured once per generation of its vectors (`calibrate`).
    with database.pool.connection() as connection:
        stored = stored_model(connection, collection)
        if stored is None or stored[0] != embedder.model_id or stored_floor(connection, collection, stored[1]) is not None:
            return Success(None)
    floor = calibrate(
        # The match score the floor is held against (`match_score`), with the floor off.
        lambda question: search_matched(
            database, question, collection=collection, limit=1, dense=embedder, match_floor=0.0
        ).map(lambda matched: 0.0 if matched[1] is None else matched[1]),
        MATCH_FLOOR,
    )
    if isinstance(floor, Failure):
        return Failure(floor.failure())
    with database.pool.connection() as connection, connection.transaction():
        record_floor(connection, collection, stored[1], floor.unwrap())
    return Success(None)


def _scrubbed(database: PostgresDatabase, exc: BaseException) -> str:
    return scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, database.password)


def _batches(items: Sequence[tuple[Found, str]], size: int) -> list[Sequence[tuple[Found, str]]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


class _Run:
    """One indexing run's fixed inputs and its counters (what a dropped connection reports)."""

    def __init__(
        self,
        database: PostgresDatabase,
        roots: Sequence[Path],
        found: tuple[Found, ...],
        collection: str,
        max_tokens: int,
        encoding: str,
        trust_tier: str,
        progress: Progress | None,
        strict: bool,
    ) -> None:
        self.database, self.roots, self.found, self.collection = database, roots, found, collection
        self.max_tokens, self.encoding, self.trust_tier, self.progress = max_tokens, encoding, trust_tier, progress
        self.strict = strict
        self.walk_problems: tuple[SkippedFile, ...] = ()
        self.embedder: Embedder | None = None
        self.started = False
        self.committed = 0
        self.total_batches = 0

    def index(self, connection: _Connection, config: str, batch_files: int) -> Result[PostgresIndexReport, PostgresSourceError]:
        if not self.strict:
            return self._index(connection, config, batch_files)
        # One transaction, the run's own transactions savepoints in it: a problem anywhere rolls
        # everything back (a first run's collection settings, the pruning, every batch), as a
        # strict SQLite run leaves the previous index, or no index, as it was.
        with connection.transaction() as whole:
            indexed = self._index(connection, config, batch_files)
            if isinstance(indexed, Failure) or indexed.unwrap().skipped:
                raise psycopg.Rollback(whole)
        if isinstance(indexed, Failure):
            return indexed
        report = indexed.unwrap()
        if report.skipped:
            return Failure(IndexProblems(f"{self.database.url} collection {self.collection!r}", report.skipped))
        self.committed = self.total_batches
        return Success(dataclasses.replace(report, batches=self.committed))

    def _index(self, connection: _Connection, config: str, batch_files: int) -> Result[PostgresIndexReport, PostgresSourceError]:
        schema = ensure_schema(connection, self.database.url)
        if isinstance(schema, Failure):
            return Failure(schema.failure())
        settings = self._settings(connection, config)
        if isinstance(settings, Failure):
            return Failure(settings.failure())
        stored = self._stored(connection, None)
        removed = sorted(gone(self.roots, {str(item.path) for item in self.found}, stored))
        unchanged: list[str] = []
        to_read: list[Found] = []
        for item in self.found:
            previous = stored.get(str(item.path))
            try:
                same = previous is not None and previous.unchanged(item.path.stat(), self.trust_tier)
            except OSError:
                same = False  # vanished since the walk: reading it reports the problem
            if same:
                unchanged.append(str(item.path))
            else:
                to_read.append(item)
        # Labels (and so passage ids) are chosen before chunking, as in SQLite: a file keeps its
        # label; a new file whose label another path holds is named by its full path.
        pruned = set(removed)
        labels = {record.source: path for path, record in stored.items() if path not in pruned}
        planned: list[tuple[Found, str]] = []
        for item in to_read:
            previous = stored.get(str(item.path))
            label = previous.source if previous is not None else free_label(labels, item)
            labels[label] = str(item.path)
            planned.append((item, label))
        batches = _batches(planned, batch_files)
        self.total_batches = len(batches) + (1 if removed and not batches else 0)
        self.started = True
        outcome: _Outcome = ([], [], list(self.walk_problems))
        written = self._batches(connection, batches, removed, len(to_read), outcome)
        if isinstance(written, Failure):
            return written
        chunked, touched, problems = outcome
        if chunked and not self.strict:
            # Ready at once: fresh statistics, so the first searches after a bulk load are planned
            # as later ones are (the GIN index itself has no pending list to merge: fastupdate off).
            # A strict run's transaction is still open; its caller's next run, or autovacuum, does it.
            connection.execute("ANALYZE thrift_fp_passages")
        embedded = 0
        if self.embedder is not None:
            synced = sync_vectors(connection, self.collection, self.embedder)
            if isinstance(synced, Failure):
                return Failure(synced.failure())
            embedded = synced.unwrap()
        elif chunked or removed or problems:
            with connection.transaction():
                forget_vectors_model(connection, self.collection)  # passages changed, not embedded
        row = connection.execute(
            "SELECT count(*) FROM thrift_fp_passages WHERE collection = %s", (self.collection,)
        ).fetchone()
        return Success(
            PostgresIndexReport(
                self.database.url, self.collection, tuple(chunked), tuple(touched), tuple(unchanged),
                tuple(removed), tuple(problems), int(str(row[0])) if row else 0, self.committed, embedded,
            )
        )

    def _batches(
        self,
        connection: _Connection,
        batches: list[Sequence[tuple[Found, str]]],
        removed: list[str],
        total: int,
        outcome: _Outcome,
    ) -> Result[None, PostgresSourceError]:
        """Read and write every batch, each in its own transaction (a savepoint in a strict run),
        adding to ``outcome``'s chunked, touched and skipped lists."""
        chunked, touched, problems = outcome
        if removed and not batches:
            with connection.transaction():
                self._lock(connection)
                self._prune(connection, removed)
            self._committed()
        done = 0
        for number, batch in enumerate(batches):
            documents: list[tuple[Found, Document, str]] = []
            failed: list[SkippedFile] = []
            for item, label in batch:
                read = self._read(item, label)
                if isinstance(read, Failure):
                    failed.append(SkippedFile(str(item.path), read.failure()))
                else:
                    documents.append((item, read.unwrap(), label))
                done += 1
                reported = self._report(done, total, str(item.path))
                if isinstance(reported, Failure):
                    return reported
            with connection.transaction():
                self._lock(connection)
                if number == 0:
                    self._prune(connection, removed)
                written, refreshed, relabel_problems = self._write(connection, documents)
                failed.extend(relabel_problems)
                # What the collection holds must be what the file says now: a file that became
                # a problem loses its old passages (the SQLite source's rule), and is read again
                # by the next run.
                self._prune(connection, [skipped.path for skipped in failed])
            self._committed()
            chunked.extend(written)
            touched.extend(refreshed)
            problems.extend(failed)
        return Success(None)

    def _committed(self) -> None:
        # A strict run's batches are savepoints: nothing is committed until the whole run is.
        if not self.strict:
            self.committed += 1

    def _report(self, done: int, total: int, path: str) -> Result[None, PostgresSourceError]:
        if self.progress is None:
            return Success(None)
        try:
            self.progress(done, total, path)
        except Exception as exc:  # noqa: BLE001 - the caller's progress callback; keep the cause
            reason = f"the progress callback raised {exc!r}"
            return Failure(IndexInterrupted(self.database.url, self.committed, self.total_batches, reason, exc))
        return Success(None)

    def _lock(self, connection: _Connection) -> None:
        # One writer per collection at a time; readers (search) never wait for it.
        connection.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp collection ' || %s, 0))", (self.collection,)
        )

    def _settings(self, connection: _Connection, config: str) -> Result[None, PostgresSourceError]:
        try:
            connection.execute("SELECT %s::text::regconfig", (config,))
        except psycopg.errors.UndefinedObject:
            return Failure(UnknownTextSearchConfig(self.database.url, config))
        wanted = {"encoding": self.encoding, "max_tokens": str(self.max_tokens), "analyzer": default_analyzer()}
        with connection.transaction():
            self._lock(connection)
            connection.execute(
                "INSERT INTO thrift_fp_collections (collection, encoding, max_tokens, ts_config, analyzer)"
                " VALUES (%s, %s, %s, %s::text::regconfig, %s) ON CONFLICT (collection) DO NOTHING",
                (self.collection, self.encoding, self.max_tokens, config, wanted["analyzer"]),
            )
            row = connection.execute(
                "SELECT encoding, max_tokens::text, ts_config::text,"
                " %s::text::regconfig::text, analyzer FROM thrift_fp_collections WHERE collection = %s",
                (config, self.collection),
            ).fetchone()
        assert row is not None  # inserted above, under the lock
        stored = {
            "encoding": str(row[0]), "max_tokens": str(row[1]), "text_search_config": str(row[2]), "analyzer": str(row[4])
        }
        wanted["text_search_config"] = str(row[3])
        for key, value in wanted.items():
            if stored[key] != value:
                where = f"{self.database.url} collection {self.collection!r}"
                return Failure(IndexSettingsMismatch(where, key, stored[key], value))
        return Success(None)

    def _stored(self, connection: _Connection, paths: list[str] | None) -> dict[str, Stored]:
        rows = connection.execute(
            "SELECT path, source, trust_tier, mtime_ns, size, sha256, checked_ns FROM thrift_fp_files"
            " WHERE collection = %s AND (%s::text[] IS NULL OR path = ANY(%s::text[]))",
            (self.collection, paths, paths),
        ).fetchall()
        return {
            str(path): Stored(str(source), str(tier), int(str(mtime)), int(str(size)), str(sha), int(str(checked)))
            for path, source, tier, mtime, size, sha, checked in rows
        }

    def _prune(self, connection: _Connection, removed: list[str]) -> None:
        if removed:
            connection.execute(
                "DELETE FROM thrift_fp_files WHERE collection = %s AND path = ANY(%s)", (self.collection, removed)
            )

    def _read(self, item: Found, label: str) -> Result[Document, SourceError]:
        return read_document(item, label, max_tokens=self.max_tokens, encoding=self.encoding, trust_tier=self.trust_tier)

    def _write(
        self, connection: _Connection, documents: list[tuple[Found, Document, str]]
    ) -> tuple[list[str], list[str], list[SkippedFile]]:
        """Write one batch (inside its transaction, under the lock): the chunked and the touched
        paths, and the files that could not be read again under another label."""
        stored = self._stored(connection, [document.path for _, document, _ in documents])
        rows = connection.execute(
            "SELECT source, path FROM thrift_fp_files WHERE collection = %s AND source = ANY(%s)",
            (self.collection, [label for _, _, label in documents]),
        ).fetchall()
        taken = {str(source): str(path) for source, path in rows}
        chunked: list[tuple[Found, Document, str]] = []
        touched: list[str] = []
        problems: list[SkippedFile] = []
        checked_ns = time.time_ns()
        for item, document, planned in documents:
            previous = stored.get(document.path)
            if previous is not None and previous.sha256 == document.sha256 and previous.trust_tier == self.trust_tier:
                connection.execute(
                    "UPDATE thrift_fp_files SET mtime_ns = %s, size = %s, checked_ns = %s"
                    " WHERE collection = %s AND path = %s",
                    (storable_ns(document.mtime_ns), document.size, checked_ns, self.collection, document.path),
                )
                touched.append(document.path)
                continue
            # Another indexer may have named this file, or taken its label, since the plan was made.
            owner = taken.get(planned)
            label = previous.source if previous is not None else planned if owner in (None, document.path) else document.path
            if label != planned:
                reread = self._read(item, label)
                if isinstance(reread, Failure):
                    problems.append(SkippedFile(document.path, reread.failure()))
                    continue
                document = reread.unwrap()
            taken[label] = document.path
            chunked.append((item, document, label))
        if chunked:
            self._replace(connection, chunked, checked_ns)
        return [document.path for _, document, _ in chunked], touched, problems

    def _replace(self, connection: _Connection, chunked: list[tuple[Found, Document, str]], checked_ns: int) -> None:
        paths = [document.path for _, document, _ in chunked]
        connection.execute(
            "DELETE FROM thrift_fp_passages WHERE collection = %s AND path = ANY(%s)", (self.collection, paths)
        )
        with connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO thrift_fp_files (collection, path, source, kind, trust_tier, mtime_ns, size, sha256,"
                " checked_ns) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (collection, path) DO UPDATE"
                " SET source = excluded.source, kind = excluded.kind, trust_tier = excluded.trust_tier,"
                " mtime_ns = excluded.mtime_ns, size = excluded.size, sha256 = excluded.sha256,"
                " checked_ns = excluded.checked_ns",
                [
                    (self.collection, document.path, label, document.kind, self.trust_tier,
                     storable_ns(document.mtime_ns), document.size, document.sha256, checked_ns)
                    for _, document, label in chunked
                ],
            )
        analyzer_row = connection.execute(
            "SELECT analyzer FROM thrift_fp_collections WHERE collection = %s", (self.collection,)
        ).fetchone()
        analyzer = str(analyzer_row[0]) if analyzer_row else default_analyzer()
        with connection.cursor() as cursor, cursor.copy(_COPY) as copy:
            for _, document, label in chunked:
                # Files carry no portable creation time; both stamps are the modification time.
                stamp = datetime.fromtimestamp(storable_ns(document.mtime_ns) / 1e9, tz=UTC)
                for passage in document.passages:
                    # The operator's tier, never one a document claims for itself.
                    fields = analyze_fields(passage.text, passage.heading_path, analyzer)
                    lexicon = sorted({*fields.body.split(), *fields.heading.split(), *fields.trail.split()})
                    copy.write_row(
                        (self.collection, document.path, passage.passage_id, label, passage.ordinal, document.kind,
                         self.trust_tier, stamp, stamp, passage.content_hash, passage.tokens,
                         heading_path(passage), passage.text, passage.metadata, fields.body, fields.heading,
                         fields.trail, *fields.lengths, lexicon)
                    )
