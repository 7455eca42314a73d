"""Building or updating an index incrementally; one bad file never aborts a run.

Only files whose size or modification time changed, or that a run names under another
trust tier, are read; of those, only files whose SHA-256 or tier changed are chunked again.
A file modified within ``RACY_NS`` of the moment it was last checked is read again
regardless: a second edit in the same timestamp tick keeps size and modification time, and
only its hash can tell (git's "racy clean" problem).

A file that cannot be taken (unreadable, binary, undecodable, malformed JSONL, a parser not
installed) is reported in ``IndexReport.skipped`` with its reason, holds no passages, and the
rest of the run is indexed and committed; ``strict=True`` refuses to commit instead.
Pruning happens in the same transaction: files under a named folder that are gone (or no
longer selected by the globs and ``.gitignore``) leave the index, and so does any indexed
file that no longer exists at all (a renamed or deleted folder). The update is built in a
temporary copy of the index and moved over it with one atomic rename, so a failed or
interrupted run leaves the previous index (or no file at all) behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable, Sequence

from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp._args import CheckedPathsArg, CheckedStringsArg, PathArg, as_path
from thrift_fp._value import value
from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources.documents import (
    DEFAULT_INCLUDE,
    DEFAULT_MAX_TOKENS,
    MAX_PASSAGE_TOKENS,
    MIN_PASSAGE_TOKENS,
    DocumentPassage,
    FoundFile,
    StoredFile,
    checked_selection,
    decode_text,
    document_passages,
    free_label,
    gone,
    kind_of,
    read_selected,
    select_checked,
    storable_ns,
)
from thrift_fp.sources.contract import (
    CorruptDatabase,
    IndexProblems,
    IndexSettingsMismatch,
    IndexWriteFailed,
    InvalidChunkBound,
    InvalidTrustTier,
    SkippedFile,
    SourceError,
    UnreadableFile,
)
from thrift_fp.sources.dense import MATCH_FLOOR, DenseChoice, Embedder, calibrate, index_embedder, shipped
from thrift_fp.sources.sqlite._dense import (
    forget_vectors_model, keep_block, keep_index_block, keep_vector_keys, record_floor, stored_floor, sync_vectors,
    vectors_current,
)
from thrift_fp.sources.sqlite._held import held_model, stored_model
from thrift_fp.sources.sqlite._search import search_matched
from thrift_fp.sources.ranking import analyze_fields, default_analyzer
from thrift_fp.sources.sqlite._store import check_fts5, connect, create_schema, read_settings
from thrift_fp.tokens._encoding import get_encoding

Progress = Callable[[int, int, str], None]
# Passage inputs embedded so far by this run, and how many it has to embed.
EmbedProgress = Callable[[int, int], None]


@value
class IndexReport:
    """What one ``index_paths`` run did, by file: each path lands in exactly one tuple.

    ``skipped`` lists each file the run could not take, with its reason; ``embedded`` counts the
    passage texts the run embedded (only those whose vectors the index did not hold yet).
    """

    database: str
    chunked: tuple[str, ...]
    touched: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    passages: int
    skipped: tuple[SkippedFile, ...] = ()
    embedded: int = 0


def index_paths(
    database: PathArg,
    paths: CheckedPathsArg,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    encoding: str = "cl100k_base",
    trust_tier: str = "first-party",
    progress: Progress | None = None,
    include: CheckedStringsArg = DEFAULT_INCLUDE,
    exclude: CheckedStringsArg = (),
    gitignore: bool = True,
    strict: bool = False,
    dense: DenseChoice = False,
    embed_progress: EmbedProgress | None = None,
) -> Result[IndexReport, SourceError]:
    """Index files and folders into ``database``: inside folders, the files ``include`` picks
    (Markdown, reStructuredText, HTML, text and JSONL by default) less ``exclude`` and what
    ``.gitignore`` files ignore (see `select_files`).

    ``progress(done, total, path)`` is called after each file that had to be read. Files that
    cannot be indexed are listed in the report's ``skipped``; with ``strict=True`` any such
    file fails the run (``IndexProblems``) and the previous index stays as it was.

    With ``dense``, the passages are committed first, then embedded in batches, each committed
    as it is made (``embed_progress(done, total)`` after each): an interrupted or failed
    embedding keeps the passages and the vectors made so far, search stays lexical (and says
    how far the vectors are) until a later run embeds the rest.

    >>> import os, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("# Budget\\n\\nShed the lowest score first.")
    >>> os.utime(root / "a.md", (1e9, 1e9))  # an old file: not modified while being indexed
    >>> report = index_paths(root / "index.db", [root / "a.md"]).unwrap()
    >>> report.chunked == (str((root / "a.md").resolve()),), report.passages
    (True, 1)
    >>> index_paths(root / "index.db", [root / "a.md"]).unwrap().unchanged == report.chunked
    True
    >>> index_paths(root / "index.db", [root / "gone.md"]).failure().message
    'no such file or folder: ...gone.md'
    >>> _ = (root / "logo.md").write_bytes(b"\\x89PNG\\x00")
    >>> [s.message for s in index_paths(root / "index.db", [root]).unwrap().skipped]
    ['skipped ...logo.md: binary data (a NUL byte at offset 4)']
    """
    # One path (or pattern) is one item, not its letters; every element is checked to be one.
    checked = checked_selection(paths, include, exclude)
    if isinstance(checked, Failure):
        return Failure(checked.failure())
    database, (roots, wanted, unwanted) = as_path(database), checked.unwrap()
    if max_tokens < MIN_PASSAGE_TOKENS:
        return Failure(InvalidChunkBound(max_tokens, MIN_PASSAGE_TOKENS))
    # A bound past any passage behaves as the largest one; clamped, it stays a small printable
    # int in the stored settings (str() of a 4301-digit int raises).
    max_tokens = min(max_tokens, MAX_PASSAGE_TOKENS)
    if trust_tier not in TRUST_TIERS:
        return Failure(InvalidTrustTier(trust_tier, TRUST_TIERS))
    available: Result[None, SourceError] = check_fts5()
    if isinstance(available, Failure):
        return available
    resolved: Result[object, SourceError] = get_encoding(encoding)
    if isinstance(resolved, Failure):
        return resolved
    if database.is_dir():
        return Failure(CorruptDatabase(str(database), "it is a folder, not an index file"))
    selected = select_checked(roots, wanted, unwanted, gitignore)
    if isinstance(selected, Failure):
        return Failure(selected.failure())
    found, skipped = selected.unwrap().files, selected.unwrap().skipped
    settings = {"encoding": encoding, "max_tokens": str(max_tokens), "analyzer": default_analyzer()}
    # A strict run with problems goes through the files anyway, to report every problem at once.
    untouched = None if strict and skipped else _nothing_to_do(database, roots, found, settings, trust_tier)
    if untouched is not None and shipped(dense) and vectors_current(database):
        # Nothing changed and the shipped model's vectors, keys and floor are whole: the model
        # would load only to find nothing to do (~0.3 s of each `ask` on the embedded corpus). An
        # index made before blocks were kept gets its block here, without the model.
        keep_index_block(database)
        return Success(dataclasses.replace(untouched, skipped=skipped))
    # With the [dense] extra (or an embedder given), new or changed passages are embedded too.
    embedder = index_embedder(dense, held_model(database) if shipped(dense) else None)
    if isinstance(embedder, Failure):
        return Failure(embedder.failure())
    if untouched is not None:
        indexed: Result[IndexReport, SourceError] = Success(dataclasses.replace(untouched, skipped=skipped))
    else:
        run = _Run(database, roots, found, skipped, settings, trust_tier, progress, strict)
        indexed = _in_temporary_copy(database, settings, run.update)
    chosen = embedder.unwrap()
    if chosen is None or isinstance(indexed, Failure):
        return indexed
    return _embed_missing(database, chosen, indexed.unwrap(), embed_progress)


def _embed_missing(
    database: Path, embedder: Embedder, report: IndexReport, progress: EmbedProgress | None
) -> Result[IndexReport, SourceError]:
    # In the index itself, batch by batch (sync_vectors): the passages are already committed.
    embedded = report.embedded
    try:
        connection = connect(database)
        try:
            if stored_model(connection) != embedder.model_id:
                synced = sync_vectors(connection, embedder, progress)
                if isinstance(synced, Failure):
                    return Failure(synced.failure())
                embedded = synced.unwrap()
            else:
                _keep_keys(connection, embedder.model_id)
            if stored_floor(connection, embedder.model_id) is None:
                # Measured on the passages as they now are, with the search a question gets.
                floor = calibrate(lambda question: _best_score(database, question, embedder), MATCH_FLOOR)
                if isinstance(floor, Failure):
                    return Failure(floor.failure())
                record_floor(connection, embedder.model_id, floor.unwrap())
            _keep_block(connection, embedder)
        finally:
            connection.close()
    except (OSError, sqlite3.Error) as exc:
        return Failure(IndexWriteFailed(str(database), str(exc), exc))
    return Success(dataclasses.replace(report, embedded=embedded))


def _keep_keys(connection: sqlite3.Connection, model_id: str) -> None:
    # An index embedded before vector keys were kept gets them now (a run that embeds keeps them
    # as it goes). They only spare a search some work: an index this run cannot write (a
    # read-only file, a busy lock) is left as it is rather than failing a run that has nothing to do.
    try:
        keep_vector_keys(connection, model_id)
    except sqlite3.OperationalError:
        pass


def _keep_block(connection: sqlite3.Connection, embedder: Embedder) -> None:
    # The vectors as one block, for a search's first load (`_block`). It only spares a search some
    # work: a failure to write it (a read-only file, a busy lock, a full disk) fails no run, and
    # `keep_block`'s transaction leaves the index as it was.
    try:
        keep_block(connection, embedder)
    except sqlite3.Error:
        pass


def _best_score(database: Path, question: str, embedder: Embedder) -> Result[float, SourceError]:
    # The match score the floor is held against (`match_score`), with the floor off.
    found = search_matched(database, question, limit=1, dense=embedder, match_floor=0.0)
    return found.map(lambda matched: 0.0 if matched[1] is None else matched[1])


def _nothing_to_do(
    database: Path,
    roots: Sequence[Path],
    found: tuple[FoundFile, ...],
    settings: dict[str, str],
    trust_tier: str,
) -> IndexReport | None:
    # The common case, nothing changed, needs no copy of the index: answer from a read-only look.
    # (Vectors are not its business: a run with an embedder embeds what is missing after it.)
    if not database.is_file():
        return None
    try:
        connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
        try:
            stored_settings = read_settings(connection, database)
            if isinstance(stored_settings, Failure) or _mismatch(database, stored_settings.unwrap(), settings):
                return None
            stored = _stored_files(connection)
            (passages,) = connection.execute("SELECT count(*) FROM passages").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return None  # the full run meets the same problem and reports it as a value
    for item in found:
        previous = stored.get(str(item.path))
        try:
            if previous is None or not previous.unchanged(item.path.stat(), trust_tier):
                return None
        except OSError:
            return None  # vanished since it was found: the full run reports it
    if gone(roots, {str(item.path) for item in found}, stored):
        return None
    return IndexReport(str(database), (), (), tuple(str(item.path) for item in found), (), passages)


def _stored_files(connection: sqlite3.Connection) -> dict[str, StoredFile]:
    return {
        str(path): StoredFile(source, tier, mtime_ns, size, sha, checked_ns)
        for path, source, tier, mtime_ns, size, sha, checked_ns in connection.execute(
            "SELECT path, source, trust_tier, mtime_ns, size, sha256, checked_ns FROM files"
        )
    }


def _in_temporary_copy(
    database: Path,
    settings: dict[str, str],
    update: Callable[[sqlite3.Connection], Result[IndexReport, SourceError]],
) -> Result[IndexReport, SourceError]:
    # Not tempfile.mkstemp: its file is always 0600, and the rename would carry that mode over.
    # A new index gets 0666 less the umask, like any file the user creates; an update keeps the mode.
    temporary = database.parent / f".{database.name}.{secrets.token_hex(8)}.tmp"
    try:
        database.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except OSError as exc:
        return Failure(IndexWriteFailed(str(database), str(exc), exc))
    try:
        result = _build(database, temporary, settings, update)
        if isinstance(result, Success):
            # Only now: a read-only index's mode would refuse the build's own writes.
            if database.is_file():
                os.chmod(temporary, stat.S_IMODE(database.stat().st_mode))
            os.replace(temporary, database)
        return result
    except (OSError, sqlite3.Error) as exc:
        return Failure(IndexWriteFailed(str(database), str(exc), exc))
    finally:
        temporary.unlink(missing_ok=True)


def _build(
    database: Path,
    temporary: Path,
    settings: dict[str, str],
    update: Callable[[sqlite3.Connection], Result[IndexReport, SourceError]],
) -> Result[IndexReport, SourceError]:
    connection = connect(temporary)
    connection.execute("PRAGMA journal_mode = MEMORY")
    connection.execute("PRAGMA synchronous = OFF")
    try:
        if database.exists():
            previous = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
            try:
                stored = read_settings(previous, database)
                if isinstance(stored, Success):
                    previous.backup(connection)
            finally:
                previous.close()
            if isinstance(stored, Failure):
                return stored
            mismatch = _mismatch(database, stored.unwrap(), settings)
            if mismatch is not None:
                return Failure(mismatch)
        else:
            create_schema(connection, settings)
        connection.execute("BEGIN")
        result = update(connection)
        connection.execute("COMMIT" if isinstance(result, Success) else "ROLLBACK")
    finally:
        connection.close()
    if isinstance(result, Success):
        # One flush of the finished file before the rename makes it durable; the build itself
        # skips SQLite's per-commit syncs, since a failed or interrupted build is thrown away.
        with temporary.open("rb+") as built:
            os.fsync(built.fileno())
    return result


def _mismatch(database: Path, stored: dict[str, str], wanted: dict[str, str]) -> IndexSettingsMismatch | None:
    for key, value in wanted.items():
        if stored.get(key) != value:
            return IndexSettingsMismatch(str(database), key, stored.get(key, "?"), value)
    return None


@value
class _Run:
    database: Path
    roots: tuple[Path, ...]
    found: tuple[FoundFile, ...]
    skipped: tuple[SkippedFile, ...]
    settings: dict[str, str]
    trust_tier: str
    progress: Progress | None
    strict: bool

    def update(self, connection: sqlite3.Connection) -> Result[IndexReport, SourceError]:
        stored = _stored_files(connection)
        removed = gone(self.roots, {str(item.path) for item in self.found}, stored)
        _delete(connection, removed)
        labels = {record.source: path for path, record in stored.items() if path not in removed}
        chunked: list[str] = []
        touched: list[str] = []
        unchanged: list[str] = []
        skipped = list(self.skipped)
        to_read = []
        for item in self.found:
            try:
                stat = item.path.stat()
            except OSError as exc:  # vanished or became unreadable since it was selected
                skipped.append(SkippedFile(str(item.path), UnreadableFile(str(item.path), exc.strerror or str(exc), exc)))
                continue
            previous = stored.get(str(item.path))
            if previous is not None and previous.unchanged(stat, self.trust_tier):
                unchanged.append(str(item.path))
            else:
                to_read.append((item, storable_ns(stat.st_mtime_ns), stat.st_size, previous))
        for done, (item, mtime_ns, size, previous) in enumerate(to_read, start=1):
            outcome = self._read(connection, item, (mtime_ns, size, time.time_ns()), previous, labels)
            if isinstance(outcome, SkippedFile):
                skipped.append(outcome)
                if previous is not None:
                    # What the index holds must be what the file says now: no stale passages.
                    _delete(connection, {str(item.path)})
            elif outcome:
                chunked.append(str(item.path))
            else:
                touched.append(str(item.path))
            if self.progress is not None:
                reported = _report(self.database, self.progress, done, len(to_read), str(item.path))
                if isinstance(reported, Failure):
                    return reported
        if self.strict and skipped:
            return Failure(IndexProblems(str(self.database), tuple(skipped)))
        if chunked or removed or skipped:
            forget_vectors_model(connection)  # passages changed: embedded after this commit, if at all
        (passages,) = connection.execute("SELECT count(*) FROM passages").fetchone()
        return Success(
            IndexReport(
                str(self.database), tuple(chunked), tuple(touched), tuple(unchanged), tuple(sorted(removed)),
                passages, tuple(skipped),
            )
        )

    def _read(
        self,
        connection: sqlite3.Connection,
        item: FoundFile,
        stamps: tuple[int, int, int],
        previous: StoredFile | None,
        labels: dict[str, str],
    ) -> bool | SkippedFile:
        """True when chunked, False when only its stamps changed, or why it was skipped."""
        try:
            data = read_selected(item.path)
        except OSError as exc:
            return SkippedFile(str(item.path), UnreadableFile(str(item.path), exc.strerror or str(exc), exc))
        sha = hashlib.sha256(data).hexdigest()
        if previous is not None and previous.sha256 == sha and previous.trust_tier == self.trust_tier:
            mtime_ns, size, checked_ns = stamps
            connection.execute(
                "UPDATE files SET mtime_ns = ?, size = ?, checked_ns = ? WHERE path = ?",
                (mtime_ns, size, checked_ns, str(item.path)),
            )
            return False
        decoded = decode_text(data, str(item.path))
        if isinstance(decoded, Failure):
            return SkippedFile(str(item.path), decoded.failure())
        label = previous.source if previous is not None else free_label(labels, item)
        kind = kind_of(item.path)
        chunked = document_passages(
            label, kind, decoded.unwrap().text, max_tokens=int(self.settings["max_tokens"]),
            encoding=self.settings["encoding"], trust_tier=self.trust_tier,
        )
        if isinstance(chunked, Failure):
            return SkippedFile(str(item.path), chunked.failure())
        labels[label] = str(item.path)
        _write_file(
            connection, item.path, label, kind, stamps, sha, self.trust_tier, chunked.unwrap(), self.settings["analyzer"]
        )
        return True


def _delete(connection: sqlite3.Connection, paths: set[str]) -> None:
    connection.executemany("DELETE FROM passages WHERE path = ?", [(path,) for path in paths])
    connection.executemany("DELETE FROM files WHERE path = ?", [(path,) for path in paths])


def _report(database: Path, progress: Progress, done: int, total: int, path: str) -> Result[None, SourceError]:
    try:
        progress(done, total, path)
    except Exception as exc:  # noqa: BLE001 - the caller's progress callback; keep the cause
        return Failure(IndexWriteFailed(str(database), f"the progress callback raised {exc!r}", exc))
    return Success(None)


def _write_file(
    connection: sqlite3.Connection,
    path: Path,
    label: str,
    kind: str,
    stat: tuple[int, int, int],
    sha: str,
    trust_tier: str,
    passages: tuple[DocumentPassage, ...],
    analyzer: str,
) -> None:
    mtime_ns, size, checked_ns = stat
    # Files carry no portable creation time; both stamps are the file's modification time.
    stamp = datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).isoformat()
    connection.execute("DELETE FROM passages WHERE path = ?", (str(path),))
    connection.execute(
        "INSERT OR REPLACE INTO files(path, source, kind, trust_tier, mtime_ns, size, sha256, checked_ns)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (str(path), label, kind, trust_tier, mtime_ns, size, sha, checked_ns),
    )
    connection.executemany(
        "INSERT INTO passages(passage_id, path, source, ordinal, kind, trust_tier, created_at, updated_at,"
        " content_hash, tokens, text, metadata, body_terms, heading_terms, trail_terms, body_length,"
        " heading_length, trail_length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_row(passage, path, label, kind, stamp, analyzer) for passage in passages],
    )


def _row(passage: DocumentPassage, path: Path, label: str, kind: str, stamp: str, analyzer: str) -> tuple[object, ...]:
    fields = analyze_fields(passage.text, passage.heading_path, analyzer)
    return (
        passage.passage_id, str(path), label, passage.ordinal, kind, passage.trust_tier, stamp, stamp,
        passage.content_hash, passage.tokens, passage.text, passage.metadata, fields.body, fields.heading,
        fields.trail, *fields.lengths,
    )
