"""What the dense side of both stores shares: which embedder an index run or a search uses, a
store's rows read into a matrix, and the dense candidates of a question from that matrix.

Each store (``_sqlite``, ``_postgres``) reads its own tables and keys its own cache; neither
imports the other: both import this.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.sources.dense._embedder import DEFAULT_MODEL_ID, Embedder, checked_embed, embedder_of_model
from thrift_fp.sources.dense._errors import DenseError, DenseUnavailable
from thrift_fp.sources.dense._hybrid import DenseChoice, OneQuestion, shipped
from thrift_fp.sources.dense._static import STATIC_MODEL_ID
from thrift_fp.sources.dense._vectors import DenseMatrix, dense_matrix, heading_of, vector_key
from thrift_fp.sources.ranking import Scored

# Why a search under the default ranks lexically although the extra is installed.
NO_VECTORS: Final = "the {store} holds no complete set of vectors: index it again with the [dense] extra installed"
"""Why a search under the default ranks lexically although the extra is installed (``{store}``: the index)."""

SHIPPED_MODELS: Final = frozenset({DEFAULT_MODEL_ID, STATIC_MODEL_ID})
"""The ids of the models the package ships (`embedder_for`): an index of their vectors keeps them
under ``dense=True`` (`chosen_embedder`)."""


def chosen_embedder(dense: DenseChoice, held: str | None = None) -> Result[Embedder, DenseError] | None:
    """The embedder ``dense`` asks for: ``None`` for lexical only, else the embedder or why it is
    unavailable. ``True`` means the shipped model of the index's vectors (``held``, its model id),
    the default model when it holds none of a shipped model.

    >>> chosen_embedder(False) is None
    True
    """
    if dense is False:
        return None
    if dense is True or isinstance(dense, OneQuestion):
        return embedder_of_model(held, one_question=isinstance(dense, OneQuestion))
    return Success(dense)


def index_embedder(dense: DenseChoice, held: str | None = None) -> Result[Embedder | None, DenseError]:
    """The embedder an index run uses: ``None`` (lexical only) when turned off, or when the default
    is asked for and the extra is not installed; a model that is installed but cannot load is an error.
    ``True`` keeps the shipped model the index already holds vectors of (``held``).

    >>> index_embedder(False)
    <Success: None>
    """
    # An index run embeds many texts: the shipped model's session for many.
    chosen = chosen_embedder(True if shipped(dense) else dense, held)
    if chosen is None:
        return Success(None)
    if isinstance(chosen, Failure):
        error = chosen.failure()
        return Success(None) if shipped(dense) and isinstance(error, DenseUnavailable) else Failure(error)
    return Success(chosen.unwrap())


def passages_matrix(
    embedder: Embedder, vectors: Mapping[str, bytes], passages: Iterable[Sequence[object]]
) -> DenseMatrix:
    """The matrix of the passages whose vectors ``vectors`` holds, from a store's
    ``(row, passage_id, trust_tier, content_hash, metadata, text)`` rows in row order.

    >>> import struct
    >>> class Fixed:
    ...     model_id, dimensions = "m", 1
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> key = vector_key("m", "", "Shed first.")
    >>> passages_matrix(Fixed(), {key: struct.pack("<f", 1.0)}, [
    ...     (1, "a.md#1", "first-party", "h1", "{}", "Shed first."),
    ...     (2, "a.md#2", "first-party", "h2", "{}", "Not embedded."),
    ... ]).passage_ids
    ('a.md#1',)
    """
    return keyed_matrix(embedder, vectors, (
        (row, passage_id, tier, digest, None, metadata, text) for row, passage_id, tier, digest, metadata, text in passages
    ))


def keyed_matrix(
    embedder: Embedder, vectors: Mapping[str, bytes], passages: Iterable[Sequence[object]]
) -> DenseMatrix:
    """`passages_matrix` from ``(row, passage_id, trust_tier, content_hash, key, metadata, text)``
    rows: ``key`` the passage's vector key as the store kept it, or ``None`` where it kept none, and
    then it is computed from ``metadata`` and ``text`` (which need be read only for such rows).

    >>> import struct
    >>> class Fixed:
    ...     model_id, dimensions = "m", 1
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> vectors = {vector_key("m", "", "Shed first."): struct.pack("<f", 1.0), "k2": struct.pack("<f", 1.0)}
    >>> keyed_matrix(Fixed(), vectors, [
    ...     (1, "a.md#1", "first-party", "h1", None, "{}", "Shed first."),
    ...     (2, "a.md#2", "first-party", "h2", "k2", None, None),
    ...     (3, "a.md#3", "first-party", "h3", "k3", None, None),
    ... ]).passage_ids
    ('a.md#1', 'a.md#2')
    """
    model_id = embedder.model_id
    rows = [
        (str(passage_id), int(str(row)), str(tier), str(digest), vectors[key])
        for row, passage_id, tier, digest, stored, metadata, text in passages
        if (key := str(stored) if stored is not None else vector_key(model_id, heading_of(str(metadata)), str(text)))
        in vectors
    ]
    return dense_matrix(model_id, rows, embedder.dimensions)


def nearest_candidates(
    matrix: DenseMatrix | None, embedder: Embedder, question: str, tiers: Collection[str], limit: int,
    also: Collection[int] = (),
) -> Result[tuple[tuple[Scored, ...], dict[int, float]], DenseError]:
    """The ``limit`` passages of ``matrix`` nearest ``question`` among ``tiers``, as ranked
    candidates (``score`` the cosine), and the cosine of each passage of ``also`` (row keys) that
    has a vector; none without a matrix.

    >>> import struct
    >>> class Fixed:
    ...     model_id, dimensions = "m", 1
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> matrix = passages_matrix(Fixed(), {vector_key("m", "", "Shed first."): struct.pack("<f", 1.0)},
    ...                          [(7, "a.md#1", "first-party", "h1", "{}", "Shed first.")])
    >>> near, cosines = nearest_candidates(matrix, Fixed(), "q", ("first-party",), 5, also=(7,)).unwrap()
    >>> [(c.key, c.passage_id, c.score) for c in near], cosines
    ([(7, 'a.md#1', 1.0)], {7: 1.0})
    >>> nearest_candidates(None, Fixed(), "q", ("first-party",), 5)
    <Success: ((), {})>
    """
    if matrix is None:
        return Success(((), {}))
    query = checked_embed(embedder, [question])
    if isinstance(query, Failure):
        return Failure(query.failure())
    near, cosines = matrix.nearest_and_cosines(query.unwrap()[0], tiers, limit, also)
    return Success((
        tuple(
            Scored(matrix.rows[at], matrix.passage_ids[at], matrix.content_hashes[at], cosine, cosine)
            for at, cosine in near
        ),
        cosines,
    ))
