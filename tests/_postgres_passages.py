"""Writing passage rows straight into the PostgreSQL source's tables, as any writer might, and
reading its kept ranking statistics beside the ones counted afresh."""

from __future__ import annotations

import psycopg

_Connection = psycopg.Connection[tuple[object, ...]]
FILES = ("x.md", "y.md")


def kept(connection: _Connection) -> tuple[dict[str, tuple[int, ...]], dict[tuple[str, str], int]]:
    """The statistics as the database keeps them."""
    sizes = connection.execute(
        "SELECT collection, passages, body_terms, heading_terms, trail_terms FROM thrift_fp_collection_sizes"
    ).fetchall()
    terms = connection.execute("SELECT collection, term, passages FROM thrift_fp_term_passages").fetchall()
    return (
        {str(row[0]): tuple(int(str(v)) for v in row[1:]) for row in sizes},
        {(str(c), str(t)): int(str(n)) for c, t, n in terms},
    )


def recounted(connection: _Connection) -> tuple[dict[str, tuple[int, ...]], dict[tuple[str, str], int]]:
    """The statistics counted from the passages now."""
    sizes = connection.execute(
        "SELECT collection, count(*), sum(body_length), sum(heading_length), sum(trail_length)"
        " FROM thrift_fp_passages GROUP BY collection"
    ).fetchall()
    terms = connection.execute(
        "SELECT collection, term, count(*) FROM thrift_fp_passages, unnest(lexicon) AS term GROUP BY 1, 2"
    ).fetchall()
    return (
        {str(row[0]): tuple(int(str(v)) for v in row[1:]) for row in sizes},
        {(str(c), str(t)): int(str(n)) for c, t, n in terms},
    )


def ensure_files(connection: _Connection, collection: str) -> None:
    """The collection and its two files, unless they are there."""
    connection.execute(
        "INSERT INTO thrift_fp_collections VALUES (%s, 'cl100k_base', 400, 'english', 'english-snowball')"
        " ON CONFLICT DO NOTHING",
        (collection,),
    )
    for path in FILES:
        connection.execute(
            "INSERT INTO thrift_fp_files VALUES (%s, %s, %s, 'text', 'first-party', 0, 0, '', 0) ON CONFLICT DO NOTHING",
            (collection, path, path),
        )


def passage_row(collection: str, path: str, passage: tuple[list[str], int, int, int], number: int) -> tuple[object, ...]:
    """A passage numbered ``number`` with ``(lexicon, body, heading, trail lengths)``, in `COLUMNS` order."""
    lexicon, body, heading, trail = passage
    return (
        collection, path, f"{path}#{number}", path, number, "text", "first-party", "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00Z", f"h{number}", 1, "", "text", "{}", "  ".join(lexicon), "", "", body, heading, trail,
        lexicon,
    )


COLUMNS = (
    "collection, path, passage_id, source, ordinal, kind, trust_tier, created_at, updated_at, content_hash, tokens,"
    " heading_path, text, metadata, body_terms, heading_terms, trail_terms, body_length, heading_length,"
    " trail_length, lexicon"
)
