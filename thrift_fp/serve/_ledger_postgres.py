"""Sessions kept in the PostgreSQL database the server answers from, so any worker serves any
session and a worker that dies loses nothing.

A session's ledger is the replay of its changes, one row per call that changed it, numbered
``version`` 1, 2, 3, ... (`thrift_fp.serve._ledger_change`). A call runs optimistically: read
the changes this worker has not seen yet, run the call on the ledger they make (``prepare``), and,
once the server has checked the client did not cancel it, insert its change as the next version
(``commit``), one statement, so one transaction (`thrift_fp.serve._commit`). Two workers that ran calls of
one session on the same version both try to insert that version: the primary key lets one in,
and the other runs its call again on the ledger that now includes the first (never both on one
quota). No lock is held while a call searches, fits and renders, so a slow or killed worker
blocks nobody; a killed worker's call never inserted its row, so it left nothing behind.

A row also keeps the client's request id and the answer it got: the same request sent again
(a client retrying after its worker died) gets that answer back, not a second charge.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, TypeVar

import psycopg
from returns.result import Failure, Result, Success

from thrift_fp.serve._ledger import SessionLedger
from thrift_fp.serve._commit import MAX_ATTEMPTS, CallCommit, CommitContention, Replay, run_committed
from thrift_fp.serve._ledger_change import apply_change
from thrift_fp.serve._ledger_json import change_from_json, change_to_json
from thrift_fp.sources.postgres import PostgresDatabase, PostgresError, PostgresQueryFailed, SchemaVersionMismatch

LEDGER_SCHEMA_VERSION: Final = 1
DEFAULT_CACHED_SESSIONS: Final = 1024

# Its own tables and version, apart from the passages' schema: `thrift-fp index` never needs
# them, and `serve` creates them on first use (which takes CREATE on the schema).
LEDGER_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS thrift_fp_ledger_schema (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version integer NOT NULL
);
CREATE TABLE IF NOT EXISTS thrift_fp_sessions (
    session text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now(),
    ended_at timestamptz
);
CREATE TABLE IF NOT EXISTS thrift_fp_session_changes (
    session text NOT NULL REFERENCES thrift_fp_sessions ON DELETE CASCADE,
    version integer NOT NULL CHECK (version > 0),
    request text,
    change text NOT NULL,
    answer text,
    committed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session, version),
    UNIQUE (session, request)
);
CREATE TABLE IF NOT EXISTS thrift_fp_session_cancels (
    session text NOT NULL REFERENCES thrift_fp_sessions ON DELETE CASCADE,
    request text NOT NULL,
    cancelled_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session, request)
);
"""

_CATCH_UP: Final = """
SELECT version, change, request, answer FROM thrift_fp_session_changes
WHERE session = %s AND (version > %s OR request = %s) ORDER BY version
"""
_INSERT: Final = """
INSERT INTO thrift_fp_session_changes (session, version, request, change, answer) VALUES (%s, %s, %s, %s, %s)
"""
_Answer = TypeVar("_Answer")


class LedgerContention(RuntimeError):
    """A call lost the race for its session's next version `MAX_ATTEMPTS` times in a row."""


class PostgresSessions:
    """The sessions of every server sharing ``database``; each worker keeps the ledgers it has
    read (up to ``cached`` sessions) and reads only the changes since.

    Open with `open_postgres_sessions`, which creates the tables when they are missing.
    """

    def __init__(self, database: PostgresDatabase, *, cached: int = DEFAULT_CACHED_SESSIONS) -> None:
        self.database = database
        self._cached = cached
        self._lock = threading.Lock()
        self._ledgers: OrderedDict[str, tuple[int, SessionLedger]] = OrderedDict()

    def start(self) -> str:
        """A new session's id (unguessable: it is what lets a client spend the session's quota)."""
        token = secrets.token_urlsafe(24)
        with self.database.pool.connection() as connection:
            connection.execute("INSERT INTO thrift_fp_sessions (session) VALUES (%s)", (token,))
        return token

    def known(self, token: str) -> bool:
        """Whether ``token`` names a session that was started and not ended."""
        with self.database.pool.connection() as connection:
            row = connection.execute("SELECT ended_at IS NULL FROM thrift_fp_sessions WHERE session = %s", (token,)).fetchone()
        return row is not None and bool(row[0])

    def end(self, token: str) -> bool:
        """End the session ``token`` (its rows stay, for the operator); whether it was open."""
        with self.database.pool.connection() as connection:
            cursor = connection.execute(
                "UPDATE thrift_fp_sessions SET ended_at = now() WHERE session = %s AND ended_at IS NULL", (token,)
            )
            ended = cursor.rowcount == 1
        with self._lock:
            self._ledgers.pop(token, None)
        return ended

    def cancel(self, token: str, request_id: str) -> None:
        """Note that the client of ``token`` cancelled its request ``request_id`` (whichever
        worker runs that call sees it: `PostgresSession.cancel_requested`)."""
        with self.database.pool.connection() as connection:
            connection.execute(
                "INSERT INTO thrift_fp_session_cancels (session, request) SELECT session, %s FROM thrift_fp_sessions"
                " WHERE session = %s ON CONFLICT DO NOTHING",
                (request_id, token),
            )

    def session(self, key: str) -> PostgresSession:
        """The session ``key`` names (``"http:"`` and its id, or the id alone)."""
        return PostgresSession(self, key.removeprefix("http:"))

    def _remembered(self, token: str) -> tuple[int, SessionLedger]:
        with self._lock:
            found = self._ledgers.get(token)
            if found is not None:
                self._ledgers.move_to_end(token)
        return found if found is not None else (0, SessionLedger())

    def _remember(self, token: str, version: int, ledger: SessionLedger) -> None:
        with self._lock:
            found = self._ledgers.get(token)
            if found is None or found[0] < version:
                self._ledgers[token] = (version, ledger)
                self._ledgers.move_to_end(token)
            while len(self._ledgers) > self._cached:
                self._ledgers.popitem(last=False)

    def _catch_up(self, token: str, request: str | None) -> tuple[int, SessionLedger, str | None]:
        # The changes since the ledger this worker has, and the answer kept for `request`.
        version, ledger = self._remembered(token)
        with self.database.pool.connection() as connection:
            rows = connection.execute(_CATCH_UP, (token, version, request)).fetchall()
        kept: str | None = None
        for number, change, asked, answer in rows:
            if request is not None and asked == request:
                kept = answer
            if number > version:
                if number != version + 1:
                    raise RuntimeError(f"session changes skip from version {version} to {number}")
                ledger = apply_change(ledger, change_from_json(change))
                version = number
        self._remember(token, version, ledger)
        return version, ledger, kept

    def _commit(self, token: str, version: int, change: str, request: str | None, answer: str | None) -> bool:
        # One statement, one transaction: the change lands whole as `version`, or not at all.
        try:
            with self.database.pool.connection() as connection:
                connection.execute(_INSERT, (token, version, request, change, answer))
        except psycopg.errors.UniqueViolation:
            return False
        return True


class PostgresSession:
    """One session of `PostgresSessions` (a handle: cheap, holds no connection)."""

    __slots__ = ("_sessions", "token")

    def __init__(self, sessions: PostgresSessions, token: str) -> None:
        self._sessions = sessions
        self.token = token

    @property
    def ledger(self) -> SessionLedger:
        """The session's ledger with every change committed so far, by any worker."""
        return self._sessions._catch_up(self.token, None)[1]

    def cancel_requested(self, request_id: str) -> bool:
        """Whether the client cancelled its request ``request_id`` (on any worker).

        >>> import os
        >>> from thrift_fp.sources.postgres import open_database
        >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as database:
        ...     sessions = open_postgres_sessions(database).unwrap()
        ...     token = sessions.start()
        ...     before = sessions.session(token).cancel_requested("3")
        ...     sessions.cancel(token, "3")
        ...     before, sessions.session(token).cancel_requested("3")
        (False, True)
        """
        with self._sessions.database.pool.connection() as connection:
            row = connection.execute(
                "SELECT 1 FROM thrift_fp_session_cancels WHERE session = %s AND request = %s", (self.token, request_id)
            ).fetchone()
        return row is not None

    def prepare(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> CallCommit[_Answer]:
        """Run ``call`` on the newest ledger (every change committed so far, by any worker);
        keep nothing. A request already answered (``replay``) gets its kept answer instead."""
        request = None if replay is None else replay.request
        version, ledger, kept = self._sessions._catch_up(self.token, request)
        if kept is not None and replay is not None:
            return CallCommit(version, ledger, ledger, replay.decode(kept), replay, replayed=True)
        after, answer = call(ledger)
        return CallCommit(version, ledger, after, answer, replay)

    def commit(self, prepared: CallCommit[_Answer]) -> bool:
        """Insert ``prepared``'s change as the session's next version, one statement; ``False``
        when another call of the session took that version first (prepare it again)."""
        change = prepared.change
        if prepared.replayed or change.empty:
            return True
        replay = prepared.replay
        stored = None if replay is None else replay.encode(prepared.answer)
        request = None if replay is None else replay.request
        if not self._sessions._commit(self.token, prepared.version + 1, change_to_json(change), request, stored):
            return False
        self._sessions._remember(self.token, prepared.version + 1, prepared.after)
        return True

    def step(
        self, call: Callable[[SessionLedger], tuple[SessionLedger, _Answer]], replay: Replay[_Answer] | None = None
    ) -> _Answer:
        """Run ``call`` on the newest ledger and commit its change as the next version; when
        another call of the session committed first, run it again on the ledger that includes
        that one. A request already answered (``replay``) gets its kept answer, not a rerun."""
        try:
            return run_committed(self, call, replay)
        except CommitContention as exc:
            raise LedgerContention(f"a call of session {self.token[:8]}… lost {MAX_ATTEMPTS} races for the next version") from exc


def open_postgres_sessions(database: PostgresDatabase) -> Result[PostgresSessions, PostgresError]:
    """The sessions kept in ``database``, creating their tables on first use (under a lock, so
    workers starting together create them once); another ledger schema version is refused.

    >>> import os
    >>> from thrift_fp.sources.postgres import open_database
    >>> with open_database(os.environ["THRIFT_FP_TEST_PG_URL"], create=True).unwrap() as database:
    ...     sessions = open_postgres_sessions(database).unwrap()
    ...     token = sessions.start()
    ...     sessions.known(token), sessions.session(f"http:{token}").ledger.tokens_used
    (True, 0)
    """
    try:
        with database.pool.connection() as connection, connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(hashtextextended('thrift_fp ledger schema', 0))")
            connection.execute(LEDGER_SCHEMA)
            connection.execute(
                "INSERT INTO thrift_fp_ledger_schema (version) VALUES (%s) ON CONFLICT DO NOTHING", (LEDGER_SCHEMA_VERSION,)
            )
            row = connection.execute("SELECT version FROM thrift_fp_ledger_schema").fetchone()
    except psycopg.Error as exc:
        # A refusal from a connected server (most often: no CREATE on the schema); never the password.
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        if database.password:
            reason = reason.replace(database.password, "***")
        return Failure(PostgresQueryFailed(database.url, "create the session ledger tables", reason, exc))
    stored = "none" if row is None else str(row[0])
    if stored != str(LEDGER_SCHEMA_VERSION):
        return Failure(SchemaVersionMismatch(database.url, f"ledger {stored}", f"ledger {LEDGER_SCHEMA_VERSION}"))
    return Success(PostgresSessions(database))

