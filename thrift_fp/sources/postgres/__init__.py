"""The PostgreSQL full-text source: the SQLite source's contract, for many workers on many machines.

Needs the ``postgres`` extra (``pip install 'thrift_fp[postgres]'``: psycopg 3 and psycopg_pool);
``import thrift_fp`` never imports it. Open a database once per process with `open_database`
(a thread-safe connection pool), then `index_paths`, `search_index`, `postgres_definition`
(the retrieval lifecycle) and `assemble` work as their SQLite namesakes, plus a
``collection`` (several corpora in one database) and a caller-chosen text search
configuration. Every failure is an error value whose message never shows a password.

The face is lazy: each name is imported on first use, so naming the error types (as the CLI
does) imports neither psycopg nor any SQLite code; `open_database` and the verbs load the
driver. A missing extra is an ``ImportError`` on first use of a name that needs the driver.
It stands on `thrift_fp.sources.contract`, `thrift_fp.sources.documents`,
`thrift_fp.sources.ranking` and `thrift_fp.sources.dense`, and imports nothing of the SQLite store.

>>> from thrift_fp.sources.postgres import redact
>>> redact("postgresql://ann:secret@db.example/docs")
'postgresql://ann:***@db.example/docs'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thrift_fp._lazy import homes, lazy_face

if TYPE_CHECKING:  # for mypy and Griffe; at run time lazy_face imports each name on first use
    from thrift_fp.sources.postgres._errors import (
        AuthenticationFailed,
        CollectionMissing,
        ConnectionLost,
        DatabaseNotFound,
        DatabaseUnreachable,
        IndexInterrupted,
        InvalidDatabaseUrl,
        PostgresAssembleError,
        PostgresError,
        PostgresExtraMissing,
        PostgresQueryFailed,
        PostgresSourceError,
        SchemaMissing,
        SchemaVersionMismatch,
        UnknownTextSearchConfig,
        redact,
    )
    from thrift_fp.sources.postgres._secrets import is_database_url
    from thrift_fp.sources.postgres._store import (
        DEFAULT_COLLECTION,
        SCHEMA_VERSION,
        PostgresDatabase,
        open_database,
    )
    from thrift_fp.sources.postgres._index import (
        DEFAULT_BATCH_FILES,
        DEFAULT_TEXT_SEARCH_CONFIG,
        PostgresIndexReport,
        index_paths,
    )
    from thrift_fp.sources.postgres._search import (
        rank_to_score,
        search_index,
        search_ranking,
        search_terms,
    )
    from thrift_fp.sources.postgres._definition import (
        PostgresSearchFailed,
        postgres_definition,
        require_terms,
    )
    from thrift_fp.sources.postgres._assemble import (
        assemble,
    )

# Where each name lives; tests/test_sources_stack.py checks this table against the imports above.
_HOMES = homes({
    "thrift_fp.sources.postgres._errors": (
        "AuthenticationFailed", "CollectionMissing", "ConnectionLost", "DatabaseNotFound",
        "DatabaseUnreachable", "IndexInterrupted", "InvalidDatabaseUrl", "PostgresAssembleError",
        "PostgresError", "PostgresExtraMissing", "PostgresQueryFailed", "PostgresSourceError",
        "SchemaMissing", "SchemaVersionMismatch", "UnknownTextSearchConfig", "redact",
    ),
    # Light: the command line asks it before it loads any library layer.
    "thrift_fp.sources.postgres._secrets": ("is_database_url",),
    "thrift_fp.sources.postgres._store": (
        "DEFAULT_COLLECTION", "SCHEMA_VERSION", "PostgresDatabase", "open_database",
    ),
    "thrift_fp.sources.postgres._index": (
        "DEFAULT_BATCH_FILES", "DEFAULT_TEXT_SEARCH_CONFIG", "PostgresIndexReport",
        "index_paths",
    ),
    "thrift_fp.sources.postgres._search": (
        "rank_to_score", "search_index", "search_ranking", "search_terms",
    ),
    "thrift_fp.sources.postgres._definition": (
        "PostgresSearchFailed", "postgres_definition", "require_terms",
    ),
    "thrift_fp.sources.postgres._assemble": (
        "assemble",
    ),
})

__all__ = [
    "DEFAULT_BATCH_FILES",
    "DEFAULT_COLLECTION",
    "DEFAULT_TEXT_SEARCH_CONFIG",
    "SCHEMA_VERSION",
    "AuthenticationFailed",
    "CollectionMissing",
    "ConnectionLost",
    "DatabaseNotFound",
    "DatabaseUnreachable",
    "IndexInterrupted",
    "InvalidDatabaseUrl",
    "PostgresAssembleError",
    "PostgresDatabase",
    "PostgresError",
    "PostgresExtraMissing",
    "PostgresIndexReport",
    "PostgresQueryFailed",
    "PostgresSearchFailed",
    "PostgresSourceError",
    "SchemaMissing",
    "SchemaVersionMismatch",
    "UnknownTextSearchConfig",
    "assemble",
    "index_paths",
    "is_database_url",
    "open_database",
    "postgres_definition",
    "redact",
    "search_index",
    "search_ranking",
]

# The search's inner steps left the face (issue 37: faces name what users call): each still
# imports from here, with a DeprecationWarning, until a later release.
_INNER = "search_index and postgres_definition apply it; it is not part of the API"
_RETIRED = dict.fromkeys(("rank_to_score", "require_terms", "search_terms"), _INNER)

if not TYPE_CHECKING:  # mypy checks each import against the static imports above
    __getattr__, __dir__ = lazy_face(globals(), _HOMES, retired=_RETIRED)
