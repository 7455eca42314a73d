"""Vectors beside the passages: what is embedded, under which key, and the nearest passages to a question.

A passage's vector is keyed by its embedding input (heading path and text) and the model id, not
by the passage's row: a re-chunked file whose passages did not change, a renamed file, or the
``.md`` and ``.html`` twins of one page embed nothing new. An index run embeds only the keys
it does not hold yet, and forgets the keys no passage has any more.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.dense._embedder import Embedder, checked_embed
from thrift_fp.sources.dense._errors import EmbeddingFailed

# Texts per call to the embedder and per committed batch: bounds memory and what an interruption
# loses (a few seconds of work), and lets a progress report move.
EMBED_CHUNK: Final = 64
# Indexes whose vectors stay loaded in one process (each is about 1.5 kB per passage).
_CACHED: Final = 4


def embedding_input(heading: str, text: str) -> str:
    """What the model reads for a passage: its heading path, then its text.

    The heading path tells the model which API a bare code block documents.

    >>> embedding_input("fs › Promises API", "Reads the file.")
    'fs › Promises API\\nReads the file.'
    >>> embedding_input("", "Reads the file.")
    'Reads the file.'
    """
    return f"{heading}\n{text}" if heading else text


def heading_of(metadata: str) -> str:
    """The heading path a passage's stored metadata (JSON) names, joined as it is shown.

    >>> heading_of('{"heading_path": ["fs", "Promises API"]}'), heading_of("{}"), heading_of("not json")
    ('fs › Promises API', '', '')
    """
    try:
        loaded = json.loads(metadata)
    except ValueError:
        return ""
    path = loaded.get("heading_path") if isinstance(loaded, dict) else None
    return " › ".join(str(title) for title in path) if isinstance(path, list) else ""


def vector_key(model_id: str, heading: str, text: str) -> str:
    """The key a passage's vector is stored under: the model and exactly what it read.

    >>> vector_key("m", "h", "t") == vector_key("m", "h", "t") != vector_key("m2", "h", "t")
    True
    """
    return hashlib.sha256("\0".join((model_id, heading, text)).encode("utf-8", "surrogatepass")).hexdigest()


def missing_inputs(model_id: str, passages: Iterable[tuple[str, str]], stored: set[str]) -> tuple[set[str], dict[str, str]]:
    """The keys the ``(heading, text)`` passages need, and the inputs of those not ``stored`` yet.

    >>> live, todo = missing_inputs("m", [("h", "a"), ("h", "a"), ("", "b")], {vector_key("m", "", "b")})
    >>> len(live), list(todo.values())
    (2, ['h\\na'])
    """
    keys, todo = keyed_inputs(model_id, enumerate(passages), stored)
    return set(keys.values()), todo


def keyed_inputs(
    model_id: str, passages: Iterable[tuple[int, tuple[str, str]]], stored: Collection[str]
) -> tuple[dict[int, str], dict[str, str]]:
    """Each ``(row, (heading, text))`` passage's key by its row, and the inputs of the keys not ``stored`` yet.

    >>> keys, todo = keyed_inputs("m", [(7, ("h", "a")), (9, ("", "b"))], {vector_key("m", "", "b")})
    >>> keys[9] == vector_key("m", "", "b"), list(todo.values())
    (True, ['h\\na'])
    """
    keys: dict[int, str] = {}
    todo: dict[str, str] = {}
    for row, (heading, text) in passages:
        key = keys[row] = vector_key(model_id, heading, text)
        if key not in stored:
            todo[key] = embedding_input(heading, text)
    return keys, todo


def embed_inputs(
    embedder: Embedder,
    todo: dict[str, str],
    progress: Callable[[int, int], None] | None = None,
    commit: Callable[[Sequence[tuple[str, bytes]]], None] | None = None,
) -> Result[tuple[tuple[str, bytes], ...], EmbeddingFailed]:
    """``(key, vector)`` for every input of ``todo``, embedded in chunks of `EMBED_CHUNK`;
    ``commit(chunk)`` then ``progress(done, total)`` after each (``commit`` may raise: the
    store's own error, for its caller).

    >>> import struct
    >>> class Length:
    ...     model_id, dimensions = "length", 1
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> embed_inputs(Length(), {"k": "text"}).unwrap()
    (('k', b'\\x00\\x00\\x80?'),)
    """
    keys = list(todo)
    done: list[tuple[str, bytes]] = []
    # Reported before the first batch too: the slow part starts now.
    if keys and (failed := _reported(embedder, progress, 0, len(keys))) is not None:
        return Failure(failed)
    for start in range(0, len(keys), EMBED_CHUNK):
        chunk = keys[start:start + EMBED_CHUNK]
        vectors = checked_embed(embedder, [todo[key] for key in chunk])
        if isinstance(vectors, Failure):
            return Failure(vectors.failure())
        made = tuple(zip(chunk, vectors.unwrap(), strict=True))
        if commit is not None:
            commit(made)
        done.extend(made)
        if (failed := _reported(embedder, progress, len(done), len(keys))) is not None:
            return Failure(failed)
    return Success(tuple(done))


def _reported(
    embedder: Embedder, progress: Callable[[int, int], None] | None, done: int, total: int
) -> EmbeddingFailed | None:
    if progress is None:
        return None
    try:
        progress(done, total)
    except Exception as exc:  # noqa: BLE001 - the caller's progress callback; keep the cause
        return EmbeddingFailed(embedder.model_id, f"the progress callback raised {exc!r}", exc)
    return None


@value
class DenseMatrix:
    """Every embedded passage of one index version: ids, tiers, content hashes and the unit vectors, one row each.

    ``rows`` is the store's own row key of each passage, for fetching hits.
    """

    model_id: str
    passage_ids: tuple[str, ...]
    rows: tuple[int, ...]
    tiers: tuple[str, ...]
    content_hashes: tuple[str, ...]
    # numpy.ndarray [passages, dimensions] float32, and each row's index into ``tier_names``
    # (numpy is the extra's: not imported by this module, so not named in its annotations).
    matrix: Any
    tier_names: tuple[str, ...]
    tier_codes: Any

    positions: Mapping[int, int]  # each row key's position in the matrix

    def nearest(self, query: bytes, tiers: Collection[str], limit: int) -> tuple[tuple[int, float], ...]:
        """``(position, cosine)`` of the ``limit`` passages nearest ``query`` among ``tiers``, best
        first, one per distinct content (as the lexical ranking keeps); ties by position.

        >>> import struct
        >>> matrix = dense_matrix("m", [("a#1", 1, "first-party", "ka", struct.pack("<2f", 1, 0)),
        ...     ("b#1", 2, "first-party", "kb", struct.pack("<2f", 0, 1))], 2)
        >>> matrix.nearest(struct.pack("<2f", 0.6, 0.8), frozenset({"first-party"}), 5)
        ((1, 0.8...), (0, 0.6...))
        """
        return self.nearest_and_cosines(query, tiers, limit, ())[0]

    def nearest_and_cosines(
        self, query: bytes, tiers: Collection[str], limit: int, rows: Collection[int]
    ) -> tuple[tuple[tuple[int, float], ...], dict[int, float]]:
        """`nearest`, and the cosine of each of ``rows`` (store row keys) that has a vector,
        from the same product of the question with every passage.

        >>> import struct
        >>> matrix = dense_matrix("m", [("a#1", 1, "first-party", "ka", struct.pack("<2f", 1, 0)),
        ...     ("b#1", 2, "first-party", "kb", struct.pack("<2f", 0, 1))], 2)
        >>> near, cosines = matrix.nearest_and_cosines(struct.pack("<2f", 0.6, 0.8), {"first-party"}, 1, [1, 9])
        >>> near, {row: round(cosine, 2) for row, cosine in cosines.items()}
        (((1, 0.8...),), {1: 0.6})
        """
        import numpy as np

        vectors = self.matrix
        if not self.rows:
            return (), {}
        # einsum, not ``@``: BLAS's threaded matrix-vector product spends 8 ms of CPU and, on a busy
        # machine, over 100 ms of wall time at 20k x 384 waiting for its threads; einsum's own loop
        # takes 2 ms (benchmarks/dense_speed.py).
        scores = np.einsum("ij,j->i", vectors, np.frombuffer(query, dtype="<f4"))
        cosines = {row: float(scores[self.positions[row]]) for row in rows if row in self.positions}
        if limit <= 0:
            return (), cosines
        allowed = np.array([name in tiers for name in self.tier_names], dtype=bool)
        scores = np.where(allowed[self.tier_codes], scores, -np.inf)
        wanted = min(len(self.rows), 2 * limit + 8)
        top = np.argpartition(-scores, wanted - 1)[:wanted] if wanted < len(self.rows) else np.arange(len(self.rows))
        best: list[tuple[int, float]] = []
        seen: set[str] = set()
        for position in sorted(top.tolist(), key=lambda at: (-float(scores[at]), at)):
            if not np.isfinite(scores[position]) or self.content_hashes[position] in seen:
                continue
            seen.add(self.content_hashes[position])
            best.append((position, float(scores[position])))
            if len(best) == limit:
                break
        return tuple(best), cosines


def dense_matrix(
    model_id: str, rows: Sequence[tuple[str, int, str, str, bytes]], dimensions: int
) -> DenseMatrix:
    """A `DenseMatrix` from ``(passage_id, row, tier, content_hash, vector)`` rows; vectors of another width are left out.

    >>> import struct
    >>> dense_matrix("m", [("a#1", 1, "first-party", "k", struct.pack("<f", 1))], 2).passage_ids
    ()
    """
    width = 4 * dimensions
    kept = [row for row in rows if len(row[4]) == width]
    # One transposition into columns: a search's first load walks every passage once, not five times.
    ids, keys, tiers, hashes, vectors = zip(*kept, strict=True) if kept else ((), (), (), (), ())
    return dense_columns(model_id, ids, keys, tiers, hashes, b"".join(vectors), dimensions)


def dense_columns(
    model_id: str, passage_ids: tuple[str, ...], rows: tuple[int, ...], tiers: tuple[str, ...],
    content_hashes: tuple[str, ...], vectors: bytes, dimensions: int,
) -> DenseMatrix:
    """A `DenseMatrix` from its columns: ``vectors`` the passages' float32 (little-endian) values
    one after another, ``4 * dimensions`` bytes each, in the order of the other columns, whose
    lengths and distinct ``rows`` the caller has checked.

    >>> import struct
    >>> dense_columns("m", ("a#1",), (7,), ("first-party",), ("k",), struct.pack("<2f", 0.6, 0.8), 2).positions
    {7: 0}
    """
    import numpy as np

    # Read-only, over ``vectors`` itself: no copy of what may be tens of megabytes.
    matrix = np.frombuffer(vectors, dtype="<f4").reshape(len(rows), dimensions)
    names = tuple(sorted(set(tiers)))
    codes = {name: at for at, name in enumerate(names)}
    return DenseMatrix(
        model_id,
        passage_ids,
        rows,
        tiers,
        content_hashes,
        np.ascontiguousarray(matrix, dtype=np.float32),
        names,
        np.fromiter(map(codes.__getitem__, tiers), dtype=np.int64, count=len(rows)),
        dict(zip(rows, range(len(rows)), strict=True)),
    )


_loaded: dict[tuple[object, ...], DenseMatrix | None] = {}


def cached_matrix(version: tuple[object, ...], load: Callable[[], DenseMatrix | None]) -> DenseMatrix | None:
    """The matrix of one index ``version`` (a tuple that changes whenever the index does), loaded once.

    >>> calls = []
    >>> _ = cached_matrix(("doc", 1), lambda: calls.append(1))
    >>> _ = cached_matrix(("doc", 1), lambda: calls.append(1))
    >>> len(calls)
    1
    """
    if version not in _loaded:
        while len(_loaded) >= _CACHED:
            del _loaded[next(iter(_loaded))]
        _loaded[version] = load()
    return _loaded[version]
