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

from thrift_fp.sources.sqlite._assemble import assemble
from thrift_fp.sources.sqlite._definition import SearchFailed, fts5_definition
from thrift_fp.sources.sqlite._index import IndexReport, index_paths
from thrift_fp.sources.sqlite._search import search_index, search_ranking
from thrift_fp.sources.sqlite._store import check_fts5

__all__ = [
    "IndexReport",
    "SearchFailed",
    "assemble",
    "check_fts5",
    "fts5_definition",
    "index_paths",
    "search_index",
    "search_ranking",
]
