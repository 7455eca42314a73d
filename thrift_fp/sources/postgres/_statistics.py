"""A collection's ranking statistics, kept by the database as its passages change.

The shared ranking needs, for each search, the collection's sizes (passages and the total length
of each analyzed field) and how many passages hold each question term (``df``). Counting them
at search time reads the whole collection: ~1 s at 1M passages. Instead two small tables hold
them, and triggers on ``thrift_fp_passages`` update them in the transaction that changes the
passages, whoever writes (an index run, its ``COPY``, a cascade from a deleted file or
collection, an operator's own SQL):

- ``thrift_fp_collection_sizes(collection, passages, body_terms, heading_terms, trail_terms)``
- ``thrift_fp_term_passages(collection, term, passages)``: no row for a term no passage holds.

Each change adds its net delta with ``INSERT ... ON CONFLICT DO UPDATE SET n = n + delta``: a
concurrent writer waits for the row and adds to what was committed, so no update is lost. A
database made before these tables gains them on its next index run (`ensure_statistics`, under
the schema lock): they are created, filled from the passages and armed in one transaction that
keeps writers of the passages out meanwhile; until then searches count by scanning, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import psycopg

from thrift_fp.sources.ranking import CollectionStats
from thrift_fp.sources.postgres._connection import Connection as _Connection

# What a passage row adds to its collection's sizes and to each of its terms' counts: the
# triggers and the fill compute it alike. The function is bound to the schema it was made in
# (``SET search_path FROM CURRENT``), so a writer with another search_path updates these tables.
STATISTICS: Final = """
CREATE TABLE thrift_fp_collection_sizes (
    collection text PRIMARY KEY,
    passages bigint NOT NULL,
    body_terms bigint NOT NULL,
    heading_terms bigint NOT NULL,
    trail_terms bigint NOT NULL
);
CREATE TABLE thrift_fp_term_passages (
    collection text NOT NULL,
    term text NOT NULL,
    passages bigint NOT NULL,
    PRIMARY KEY (collection, term)
);
CREATE FUNCTION thrift_fp_count_passages() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
    changes text;
    emptied_collections text[];
    emptied_terms text[];
    emptied_term_collections text[];
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM thrift_fp_collection_sizes;
        DELETE FROM thrift_fp_term_passages;
        RETURN NULL;
    ELSIF TG_OP = 'INSERT' THEN
        changes := 'SELECT collection, lexicon, 1, body_length, heading_length, trail_length FROM added';
    ELSIF TG_OP = 'DELETE' THEN
        changes := 'SELECT collection, lexicon, -1, -body_length, -heading_length, -trail_length FROM removed';
    ELSE  -- one row's UPDATE of a counted column (see the trigger's WHEN): out with the old, in with the new
        changes := 'SELECT ($1).collection, ($1).lexicon, -1, -($1).body_length, -($1).heading_length,'
                   ' -($1).trail_length UNION ALL SELECT ($2).collection, ($2).lexicon, 1, ($2).body_length,'
                   ' ($2).heading_length, ($2).trail_length';
    END IF;
    -- Net deltas in key order (two writers lock shared rows in one order), added to what is
    -- committed; the rows that reach zero are deleted after.
    EXECUTE format($sql$
        WITH changes (collection, lexicon, sign, body, heading, trail) AS (%s),
        sizes AS (
            INSERT INTO thrift_fp_collection_sizes AS s
                SELECT collection, sum(sign), sum(body), sum(heading), sum(trail)
                FROM changes GROUP BY collection ORDER BY collection
            ON CONFLICT (collection) DO UPDATE SET
                passages = s.passages + excluded.passages, body_terms = s.body_terms + excluded.body_terms,
                heading_terms = s.heading_terms + excluded.heading_terms,
                trail_terms = s.trail_terms + excluded.trail_terms
            RETURNING s.collection, s.passages
        ),
        terms AS (
            INSERT INTO thrift_fp_term_passages AS t
                SELECT collection, term, sum(sign) FROM changes, unnest(lexicon) AS term
                GROUP BY collection, term HAVING sum(sign) <> 0 ORDER BY collection, term
            ON CONFLICT (collection, term) DO UPDATE SET passages = t.passages + excluded.passages
            RETURNING t.collection, t.term, t.passages
        )
        SELECT (SELECT array_agg(collection) FROM sizes WHERE passages = 0),
               (SELECT array_agg(collection) FROM terms WHERE passages = 0),
               (SELECT array_agg(term) FROM terms WHERE passages = 0)
    $sql$, changes) INTO emptied_collections, emptied_term_collections, emptied_terms USING OLD, NEW;
    IF emptied_collections IS NOT NULL THEN
        DELETE FROM thrift_fp_collection_sizes
            WHERE collection = ANY(emptied_collections) AND passages = 0;
    END IF;
    IF emptied_terms IS NOT NULL THEN
        DELETE FROM thrift_fp_term_passages AS t
            USING unnest(emptied_term_collections, emptied_terms) AS e(collection, term)
            WHERE t.collection = e.collection AND t.term = e.term AND t.passages = 0;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER thrift_fp_count_added AFTER INSERT ON thrift_fp_passages
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION thrift_fp_count_passages();
CREATE TRIGGER thrift_fp_count_removed AFTER DELETE ON thrift_fp_passages
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION thrift_fp_count_passages();
CREATE TRIGGER thrift_fp_count_changed
    AFTER UPDATE OF collection, lexicon, body_length, heading_length, trail_length ON thrift_fp_passages
    FOR EACH ROW WHEN ((OLD.collection, OLD.lexicon, OLD.body_length, OLD.heading_length, OLD.trail_length)
                       IS DISTINCT FROM
                       (NEW.collection, NEW.lexicon, NEW.body_length, NEW.heading_length, NEW.trail_length))
    EXECUTE FUNCTION thrift_fp_count_passages();
CREATE TRIGGER thrift_fp_count_truncated AFTER TRUNCATE ON thrift_fp_passages
    FOR EACH STATEMENT EXECUTE FUNCTION thrift_fp_count_passages();
"""

# The statistics as they are now, computed from the passages (the fill, and the scan of a
# database that has no maintained statistics yet).
_FILL: Final = """
INSERT INTO thrift_fp_collection_sizes
    SELECT collection, count(*), sum(body_length), sum(heading_length), sum(trail_length)
    FROM thrift_fp_passages GROUP BY collection;
INSERT INTO thrift_fp_term_passages
    SELECT collection, term, count(*) FROM thrift_fp_passages, unnest(lexicon) AS term GROUP BY collection, term;
"""
_SCANNED_SIZES: Final = """
SELECT count(*), coalesce(sum(body_length), 0), coalesce(sum(heading_length), 0), coalesce(sum(trail_length), 0)
FROM thrift_fp_passages WHERE collection = %(collection)s
"""
_KEPT_SIZES: Final = """
SELECT passages, body_terms, heading_terms, trail_terms FROM thrift_fp_collection_sizes
WHERE collection = %(collection)s
"""
# How many passages hold each term, over every tier: the GIN index finds them, the heap counts them.
_SCANNED_COUNTS: Final = """
SELECT term, (SELECT count(*) FROM thrift_fp_passages AS p WHERE p.collection = %(collection)s
              AND p.lexicon @> ARRAY[term])
FROM unnest(%(terms)s::text[]) AS term
"""
_KEPT_COUNTS: Final = """
SELECT term, passages FROM thrift_fp_term_passages WHERE collection = %(collection)s AND term = ANY(%(terms)s)
"""


def statistics_kept(connection: _Connection) -> bool:
    """Whether the database keeps the statistics (a database made before them does not yet)."""
    row = connection.execute("SELECT to_regclass('thrift_fp_term_passages') IS NOT NULL").fetchone()
    return bool(row and row[0])


def ensure_statistics(connection: _Connection) -> None:
    """Create, fill and arm the statistics tables unless they are there (inside the caller's
    transaction, under its schema lock). Writers of the passages wait until it commits: the fill
    and the triggers see the same passages. Searches go on, counting by scanning."""
    if statistics_kept(connection):
        return
    connection.execute("LOCK TABLE thrift_fp_passages IN SHARE ROW EXCLUSIVE MODE")
    connection.execute(STATISTICS)
    connection.execute(_FILL)


def collection_sizes(connection: _Connection, collection: str, kept: bool) -> CollectionStats:
    """``collection``'s passage count and field lengths: kept ones, or (``kept=False``) counted."""
    if kept:
        row = connection.execute(_KEPT_SIZES, {"collection": collection}).fetchone()
        if row is None:
            return CollectionStats(0, 0, 0, 0)  # no passage: the triggers keep no row of zeros
    else:
        row = connection.execute(_SCANNED_SIZES, {"collection": collection}).fetchone()
        assert row is not None  # an aggregate without GROUP BY returns one row
    return CollectionStats(*(int(str(value)) for value in row))


def term_counts(connection: _Connection, collection: str, terms: Sequence[str], kept: bool) -> dict[str, int]:
    """How many of ``collection``'s passages hold each of ``terms`` (absent: none)."""
    query = _KEPT_COUNTS if kept else _SCANNED_COUNTS
    rows = connection.execute(query, {"collection": collection, "terms": list(terms)}).fetchall()
    return {str(term): int(str(count)) for term, count in rows}
