"""Properties of the dense candidates found in SQL (pgvector): for any passages, tiers, twins and
question, the HNSW search gives the in-process path's answer — the same cosines best first, only
allowed tiers, one passage per content — and an index run's fill gives every passage of the
right size its own stored vector and no other."""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator

import psycopg
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from thrift_fp.records import TRUST_TIERS
from thrift_fp.sources.dense._vectors import dense_matrix, vector_key
from thrift_fp.sources.postgres import open_database
from thrift_fp.sources.postgres._pgvector import nearest_in_sql, prepare_column, stored_column, sync_column

MODEL = "grid"
DIMENSIONS = 4
COLLECTION = "c"

_components = st.lists(st.integers(-4, 4), min_size=DIMENSIONS, max_size=DIMENSIONS).filter(any)
_passages = st.lists(
    st.tuples(st.sampled_from(TRUST_TIERS), st.integers(0, 5), _components, st.booleans()), min_size=1, max_size=24
)


def _unit(components: list[int]) -> bytes:
    norm = math.sqrt(sum(c * c for c in components))
    return struct.pack(f"<{DIMENSIONS}f", *(c / norm for c in components))


def _exact(a: bytes, b: bytes) -> float:
    return float(sum(x * y for x, y in zip(struct.unpack(f"<{DIMENSIONS}f", a), struct.unpack(f"<{DIMENSIONS}f", b), strict=True)))


@pytest.fixture
def connection(pgvector_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    open_database(pgvector_url, create=True).unwrap().close()
    with psycopg.connect(pgvector_url, autocommit=True) as opened:
        from thrift_fp.sources.postgres._dense import TABLES

        opened.execute(TABLES)
        yield opened


def _store(connection: psycopg.Connection[tuple[object, ...]], passages: list[tuple[str, int, list[int], bool]]) -> list[tuple[int, str, str, str, bytes, bool]]:
    """Write the passages (vectors stored, some of another size) and fill the column; returns
    ``(row, passage_id, tier, content_hash, vector, right_size)`` of each."""
    connection.execute("DELETE FROM thrift_fp_collections WHERE collection = %s", (COLLECTION,))
    connection.execute(
        "INSERT INTO thrift_fp_collections VALUES (%s, 'cl100k_base', 400, 'english', 'english-snowball')", (COLLECTION,)
    )
    connection.execute("INSERT INTO thrift_fp_files VALUES (%s, 'a.md', 'a.md', 'text', 'first-party', 0, 0, '', 0)", (COLLECTION,))
    stored = []
    for number, (tier, content, components, right_size) in enumerate(passages):
        text = f"passage {number}"
        row = connection.execute(
            "INSERT INTO thrift_fp_passages (collection, path, passage_id, source, ordinal, kind, trust_tier, created_at,"
            " updated_at, content_hash, tokens, heading_path, text, metadata, body_terms, heading_terms, trail_terms,"
            " body_length, heading_length, trail_length, lexicon) VALUES (%s, 'a.md', %s, 'a.md', %s, 'text', %s, now(),"
            " now(), %s, 1, '', %s, '{}', '', '', '', 0, 0, 0, '{}') RETURNING id",
            (COLLECTION, f"a.md#{number}", number, tier, f"content-{content}", text),
        ).fetchone()
        assert row is not None
        vector = _unit(components) if right_size else struct.pack("<f", 1.0)
        connection.execute(
            "INSERT INTO thrift_fp_dense_vectors VALUES (%s, %s, %s)", (COLLECTION, vector_key(MODEL, "", text), vector)
        )
        stored.append((int(str(row[0])), f"a.md#{number}", tier, f"content-{content}", vector, right_size))
    return stored


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], max_examples=40)
@given(
    passages=_passages,
    question=_components,
    tiers=st.sets(st.sampled_from(TRUST_TIERS)),
    limit=st.integers(0, 8),
    also=st.lists(st.integers(0, 30), max_size=4),
)
# Twins nearest the question: one per content still fills the limit.
@example(
    passages=[("first-party", 0, [1, 0, 0, 0], True), ("first-party", 0, [2, 0, 0, 0], True),
              ("first-party", 1, [0, 1, 0, 0], True)],
    question=[1, 0, 0, 0], tiers={"first-party"}, limit=2, also=[],
)
def test_sql_nearest_is_the_in_process_nearest(
    connection: psycopg.Connection[tuple[object, ...]],
    passages: list[tuple[str, int, list[int], bool]],
    question: list[int],
    tiers: set[str],
    limit: int,
    also: list[int],
) -> None:
    schema = prepare_column(connection)
    assert schema is not None
    with connection.transaction():
        stored = _store(connection, passages)
        filled = sync_column(connection, COLLECTION, schema, MODEL, DIMENSIONS)
    assert filled == sum(1 for *_, right_size in stored if right_size)
    column = stored_column(connection, COLLECTION)
    assert column is not None and (column.model, column.dimensions) == (MODEL, DIMENSIONS)
    query = _unit(question)
    rows = [stored[at % len(stored)][0] for at in also]
    near, cosines = nearest_in_sql(connection, COLLECTION, column, query, tiers, limit, rows)
    matrix = dense_matrix(MODEL, [(pid, row, tier, digest, vector) for row, pid, tier, digest, vector, _ in stored], DIMENSIONS)
    expected, expected_cosines = matrix.nearest_and_cosines(query, tiers, limit, rows)
    # The same cosines, best first (float32 sums may differ in their last bits)...
    assert [round(cosine, 5) for *_, cosine in near] == [round(cosine, 5) for _, cosine in expected]
    by_row = {row: (tier, digest, vector) for row, _, tier, digest, vector, _ in stored}
    # ...each the passage's own, of an allowed tier, one per content.
    for row, _, digest, cosine in near:
        assert by_row[row][0] in tiers and by_row[row][1] == digest
        assert abs(cosine - _exact(by_row[row][2], query)) < 1e-5
    assert len({digest for _, _, digest, _ in near}) == len(near)
    assert cosines.keys() == expected_cosines.keys()
    assert all(abs(cosines[row] - expected_cosines[row]) < 1e-5 for row in cosines)
