"""Properties of the ranking statistics PostgreSQL keeps (`_statistics`): after any sequence of
writes to the passages — inserts and ``COPY``, deletes, cascades from a deleted file or
collection, updates of the counted columns and of others, moves between collections,
``TRUNCATE``, transactions rolled back — the kept sizes and term counts are exactly what
counting the passages afresh gives, with no row for an empty collection or an absent term."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._postgres_passages import COLUMNS, FILES, ensure_files, kept, passage_row, recounted
from thrift_fp.sources.postgres import open_database

_Connection = psycopg.Connection[tuple[object, ...]]
COLLECTIONS = ("a", "b")
_TERMS = st.sampled_from(["shed", "budget", "tier", "trust", "score", "window"])
_LEXICON = st.lists(_TERMS, max_size=4, unique=True)
_PASSAGE = st.tuples(_LEXICON, st.integers(0, 40), st.integers(0, 5), st.integers(0, 9))
_COLLECTION = st.sampled_from(COLLECTIONS)
_FILE = st.sampled_from(FILES)

_OPERATION = st.one_of(
    st.tuples(st.just("insert"), _COLLECTION, _FILE, st.lists(_PASSAGE, min_size=1, max_size=5), st.booleans()),
    st.tuples(st.just("delete holding"), _COLLECTION, _TERMS),
    st.tuples(st.just("delete file"), _COLLECTION, _FILE),
    st.tuples(st.just("delete collection"), _COLLECTION),
    st.tuples(st.just("relexicon"), _COLLECTION, _TERMS, _LEXICON, st.integers(0, 40)),
    st.tuples(st.just("move"), _COLLECTION, _TERMS),
    st.tuples(st.just("touch"), _COLLECTION),
    st.tuples(st.just("truncate")),
)


@pytest.fixture
def connection(pg_url: str) -> Iterator[_Connection]:
    open_database(pg_url, create=True).unwrap().close()
    with psycopg.connect(pg_url, autocommit=True) as opened:
        yield opened


def apply(connection: _Connection, operation: tuple[object, ...], serial: list[int]) -> None:
    """One write to the passages, as any writer (an index run, an operator) might make it."""
    kind = operation[0]
    if kind == "insert":
        _, collection, path, passages, by_copy = operation
        assert isinstance(collection, str) and isinstance(path, str) and isinstance(passages, list)
        ensure_files(connection, collection)
        rows = []
        for passage in passages:
            serial[0] += 1
            rows.append(passage_row(collection, path, passage, serial[0]))
        if by_copy:
            with connection.cursor() as cursor, cursor.copy(f"COPY thrift_fp_passages ({COLUMNS}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            with connection.cursor() as cursor:
                cursor.executemany(f"INSERT INTO thrift_fp_passages ({COLUMNS}) VALUES ({', '.join(['%s'] * 21)})", rows)
    elif kind == "delete holding":
        connection.execute(
            "DELETE FROM thrift_fp_passages WHERE collection = %s AND %s = ANY(lexicon)", (operation[1], operation[2])
        )
    elif kind == "delete file":
        connection.execute("DELETE FROM thrift_fp_files WHERE collection = %s AND path = %s", operation[1:])
    elif kind == "delete collection":
        connection.execute("DELETE FROM thrift_fp_collections WHERE collection = %s", (operation[1],))
    elif kind == "relexicon":
        _, collection, term, lexicon, body = operation
        connection.execute(
            "UPDATE thrift_fp_passages SET lexicon = %s, body_length = %s WHERE collection = %s AND %s = ANY(lexicon)",
            (lexicon, body, collection, term),
        )
    elif kind == "move":
        _, source, term = operation
        target = COLLECTIONS[1 - COLLECTIONS.index(str(source))]
        ensure_files(connection, target)
        # Passage ids are unique per collection: a moved passage takes a fresh one.
        connection.execute(
            "UPDATE thrift_fp_passages SET collection = %s, passage_id = passage_id || '-moved-' || id"
            " WHERE collection = %s AND %s = ANY(lexicon)",
            (target, source, term),
        )
    elif kind == "touch":  # a column the statistics do not count (as the vector column's fill)
        connection.execute("UPDATE thrift_fp_passages SET tokens = tokens + 1 WHERE collection = %s", (operation[1],))
    else:
        connection.execute("TRUNCATE thrift_fp_passages")


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(st.tuples(_OPERATION, st.sampled_from(["commit", "commit", "rollback", "together"])), max_size=12)
)
def test_kept_statistics_are_the_recounted_ones(connection: _Connection, steps: list[tuple[tuple[object, ...], str]]) -> None:
    connection.execute("TRUNCATE thrift_fp_collections CASCADE")
    assert kept(connection) == recounted(connection) == ({}, {})
    serial = [0]
    for index, (operation, ending) in enumerate(steps):
        if ending == "together" and index + 1 < len(steps):
            # Two writes in one transaction: the triggers add both deltas.
            with connection.transaction():
                apply(connection, operation, serial)
                apply(connection, steps[index + 1][0], serial)
        elif ending == "rollback":
            with connection.transaction() as attempt:
                apply(connection, operation, serial)
                raise psycopg.Rollback(attempt)
        else:
            apply(connection, operation, serial)
        assert kept(connection) == recounted(connection)
