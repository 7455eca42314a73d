"""The SQLite FTS5 store: the embedded default, one file per index. Its verbs are the PostgreSQL
store's: `index_paths`, `search_index`, `search_ranking`, a retrieval definition
(`fts5_definition`) and `assemble`. It stands on `thrift_fp.sources.contract`,
`thrift_fp.sources.documents`, `thrift_fp.sources.ranking` and `thrift_fp.sources.dense`, and
imports nothing of the PostgreSQL store. `thrift_fp.sources` re-exports these names.

>>> import pathlib, tempfile
>>> from thrift_fp.sources.sqlite import index_paths, search_index
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "a.md").write_text("Shedding drops the lowest score first.")
>>> _ = index_paths(root / "index.db", [root / "a.md"]).unwrap()
>>> [hit.passage_id for hit in search_index(root / "index.db", "shedding").unwrap()]
['a.md#1']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thrift_fp._lazy import homes, lazy_face

if TYPE_CHECKING:  # for mypy and Griffe; at run time lazy_face imports each name on first use
    from thrift_fp.sources.sqlite._ahead import ranked_ahead
    from thrift_fp.sources.sqlite._assemble import assemble
    from thrift_fp.sources.sqlite._dense import warm_matrix
    from thrift_fp.sources.sqlite._definition import SearchFailed, fts5_definition
    from thrift_fp.sources.sqlite._held import held_model
    from thrift_fp.sources.sqlite._index import IndexReport, index_paths
    from thrift_fp.sources.sqlite._search import search_index, search_ranking
    from thrift_fp.sources.sqlite._store import check_fts5

# Where each name lives; tests/test_sources_stack.py checks this table against the imports above.
# Lazy, so that a search (`assemble`, `search_index`) never imports the indexer and the document
# parsers (~11 ms of a one-question `ask`, issue 35).
_HOMES = homes({
    "thrift_fp.sources.sqlite._ahead": ("ranked_ahead",),
    "thrift_fp.sources.sqlite._assemble": ("assemble",),
    "thrift_fp.sources.sqlite._dense": ("warm_matrix",),
    "thrift_fp.sources.sqlite._definition": ("SearchFailed", "fts5_definition"),
    "thrift_fp.sources.sqlite._held": ("held_model",),
    "thrift_fp.sources.sqlite._index": ("IndexReport", "index_paths"),
    "thrift_fp.sources.sqlite._search": ("search_index", "search_ranking"),
    "thrift_fp.sources.sqlite._store": ("check_fts5",),
})

__all__ = [
    "IndexReport",
    "SearchFailed",
    "assemble",
    "check_fts5",
    "fts5_definition",
    "held_model",
    "index_paths",
    "ranked_ahead",
    "search_index",
    "search_ranking",
    "warm_matrix",
]

if not TYPE_CHECKING:  # mypy checks each import against the static imports above
    __getattr__, __dir__ = lazy_face(globals(), _HOMES)
