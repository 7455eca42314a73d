"""``thrift-fp ask``'s question child for an SQLite index: the question embedded, and the index
ranked by it densely, on the other core while ``ask`` loads everything else (issue 35).

`thrift_fp.sources.dense.EmbedAhead` embeds the question in a second process; for an SQLite index
that child also loads the index's vectors and computes the question's dense candidates
(`thrift_fp.sources.dense.ScoredAhead`), which spares ``ask`` numpy's import and the vectors' load.
The search takes them only for the index version, question, tiers and pool size they were made for
(`dense_candidates`); anything else, and any failure of the child, leaves the search to rank
densely itself.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import partial
from pathlib import Path
from typing import Final

# `ask` starts the child as soon as it knows its index: this module loads only the child's
# launcher (`EmbedAhead`, and `Embedder` beside it); the dense side and the store's vectors load
# in the child (`score`).
from thrift_fp.sources.dense import DenseMatrix, EmbedAhead, Embedder, Finish

# This module's child: `dense.answer_ahead` with the SQLite index's part.
_CHILD: Final = "from thrift_fp.sources.sqlite._ahead import main; from thrift_fp.sources.dense import leave; leave(main())"


def ranked_ahead(
    database: Path, question: str, tiers: Collection[str], limit: int, cache: Path | None = None
) -> EmbedAhead:
    """A child embedding ``question`` (as the retrieval normalises it) and ranking the passages of
    the SQLite index ``database`` among ``tiers`` by it, for a search of ``limit`` hits; ``cache``
    is the folder of the prepared model (`thrift_fp.sources.dense._prepared`), if any.

    >>> import pathlib
    >>> ahead = ranked_ahead(pathlib.Path("/nonexistent.db"), "q", ["first-party"], 8).result()
    >>> ahead is None or ahead.scored is None  # no index to rank (no vector either without the extra)
    True
    """
    # The search's own limit: the child sizes the dense pool from it as the search does (`dense_pool`).
    return EmbedAhead(question, cache=cache, program=_CHILD, extra={"scores": {
        "database": str(database), "tiers": sorted(tiers), "limit": max(0, limit),
    }})


def main() -> int:
    """The child (`thrift_fp.sources.dense.answer_ahead` with `score`)."""
    from thrift_fp.sources.dense import answer_ahead  # noqa: PLC0415

    preload()
    return answer_ahead(score)


def preload() -> None:
    """Import what `score` uses: it runs on a second thread, beside the model's loading, and must
    import nothing there (`thrift_fp.sources.dense.Scorer`).

    >>> preload()
    """
    import thrift_fp.sources.sqlite._block  # noqa: F401, PLC0415 - with the dense side's matrix
    import thrift_fp.sources.sqlite._held  # noqa: F401, PLC0415
    import thrift_fp.sources.sqlite._pool  # noqa: F401, PLC0415
    # From Python 3.13, `Path.as_uri` (the read-only URI `read_only` opens) imports it on first use.
    import urllib.parse  # noqa: F401, PLC0415


def score(request: Mapping[str, object]) -> Finish | None:
    """The first step of the child's ranking (`thrift_fp.sources.dense.Scorer`), run while the model
    loads: the index the request names, its version and the vectors it keeps as one block; the
    step returned computes the question's dense candidates (`scored_json`) once the vector is made.
    ``None`` when the request names no index, or the index holds no complete set of vectors.

    >>> score({}) is None
    True
    """
    # Light modules only: the search's own layers (ranking, fusion) never load in the child.
    from thrift_fp.sources.sqlite._block import stored_block  # noqa: PLC0415
    from thrift_fp.sources.sqlite._held import read_only, stored_model  # noqa: PLC0415
    from thrift_fp.sources.sqlite._pool import MAX_LIMIT, dense_pool, file_stamp  # noqa: PLC0415

    asked = request.get("scores")
    if not isinstance(asked, dict):
        return None
    database, tiers, limit = asked.get("database"), asked.get("tiers"), asked.get("limit")
    if not isinstance(database, str) or not isinstance(tiers, list) or not all(isinstance(t, str) for t in tiers):
        return None
    if type(limit) is not int or limit < 0:
        return None
    path = Path(database)
    with read_only(path) as connection:
        model = None if connection is None else stored_model(connection)
        if connection is None or model is None:
            return None
        # Taken before the vectors, as the search's own load: a change meanwhile is another version.
        stamp = file_stamp(path)
        # Of whatever width it holds: the model, loading meanwhile, says which width it must be.
        block = stored_block(connection, model, None)
    return partial(_ranked, path, model, stamp, block, tiers, dense_pool(min(limit, MAX_LIMIT)))


def _ranked(
    path: Path, model: str, stamp: tuple[str, str, int, int, int], block: DenseMatrix | None, tiers: list[str],
    limit: int, embedder: Embedder, question: str, vector: bytes,
) -> dict[str, object] | None:
    """`score`'s second step: the dense candidates of ``vector`` among ``tiers``, ``limit`` of them
    (the search's pool, `dense_pool`), over the block read, or the matrix loaded as the search
    loads it where the index keeps no block of this model's width."""
    from thrift_fp.sources.dense import scored_json  # noqa: PLC0415 - the child's, not `ask`'s

    if model != embedder.model_id:
        return None
    matrix = block if block is not None and block.matrix.shape[1] == embedder.dimensions else None
    if matrix is None:  # no block kept: the search's own load, from the tables
        from thrift_fp.sources.sqlite._dense import _matrix  # noqa: PLC0415
        from thrift_fp.sources.sqlite._held import read_only, stored_model  # noqa: PLC0415
        from thrift_fp.sources.sqlite._pool import file_stamp  # noqa: PLC0415

        with read_only(path) as connection:
            if connection is None or stored_model(connection) != embedder.model_id:
                return None
            stamp = file_stamp(path)
            matrix = _matrix(path, connection, embedder)
        if matrix is None:
            return None
    near, cosines = matrix.nearest_and_cosines(vector, tiers, limit, matrix.rows)
    return scored_json(
        (*stamp, embedder.model_id, embedder.dimensions), question, tiers, limit,
        [(matrix.rows[at], matrix.passage_ids[at], matrix.content_hashes[at], cosine) for at, cosine in near], cosines,
    )
