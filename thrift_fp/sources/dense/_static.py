"""A static embedding model: one vector per token, a text's vector their mean (issue 35's fast route).

WordLlama's ``l2_supercat`` table (256 dimensions, 32,000 Llama-2 tokens, MIT; the ``wordllama``
package ships it in its wheel) and its tokenizer, read straight from the installed files and
checked by SHA-256: ``wordllama``'s own loader is not used, because it looks for the tokenizer on
the network first. Nothing of ``wordllama`` is imported; numpy reads the safetensors file.

Embedding costs microseconds per passage (an index run with it takes about 1.4 times the lexical
run, against about 50 times with all-MiniLM), and answers are worse than all-MiniLM's on the
evaluation set's tuning half (BENCHMARKS.md §22): it is an opt-in (``thrift-fp index --model
static``), and the index records which model its vectors are of.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
from collections.abc import Sequence

from functools import cache
from pathlib import Path
from typing import Any, Final

from returns.result import Failure, Result, Success

from thrift_fp._value import value
from thrift_fp.sources.dense._errors import DenseError, DenseModelInvalid, DenseUnavailable

STATIC_PACKAGE: Final = "wordllama"
STATIC_MAX_LENGTH: Final = 512
STATIC_MODEL_ID: Final = f"wordllama-l2-supercat-256/{STATIC_MAX_LENGTH}"
_WEIGHTS: Final = ("weights/l2_supercat_256.safetensors", "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5")
_TOKENIZER: Final = ("tokenizers/l2_supercat_tokenizer_config.json", "93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68")


@value
class StaticEmbedder:
    """Token vectors averaged over a text's tokens and normalised (see `thrift_fp.sources.dense.Embedder`);
    a text with no token is the zero vector."""

    model_id: str
    dimensions: int
    table: Any  # numpy.ndarray [tokens, dimensions] float32
    tokenizer: object  # tokenizers.Tokenizer

    def embed(self, texts: Sequence[str]) -> tuple[bytes, ...]:
        """One packed unit vector per text."""
        import numpy as np

        vectors = []
        for encoding in self.tokenizer.encode_batch(list(texts), add_special_tokens=False):  # type: ignore[attr-defined]
            ids = np.asarray(encoding.ids, dtype=np.int64)
            ids = ids[(ids >= 0) & (ids < len(self.table))]
            mean = self.table[ids].mean(axis=0) if len(ids) else np.zeros(self.dimensions, dtype=np.float32)
            mean = mean / max(float(np.linalg.norm(mean)), 1e-12)
            vectors.append(np.ascontiguousarray(mean, dtype="<f4").tobytes())
        return tuple(vectors)


def safetensors_table(data: bytes, name: str) -> Any:
    """The float16 or float32 tensor ``name`` of a safetensors file's bytes, as float32 (numpy).

    >>> import numpy as np
    >>> header = json.dumps({"t": {"dtype": "F16", "shape": [1, 2], "data_offsets": [0, 4]}}).encode()
    >>> safetensors_table(struct.pack("<Q", len(header)) + header + np.array([1, 2], "<f2").tobytes(), "t")
    array([[1., 2.]], dtype=float32)
    """
    import numpy as np

    (length,) = struct.unpack_from("<Q", data)
    entry = json.loads(data[8:8 + length])[name]
    start, end = entry["data_offsets"]
    kind = {"F16": "<f2", "F32": "<f4"}[entry["dtype"]]
    return np.frombuffer(data[8 + length + start:8 + length + end], dtype=kind).reshape(entry["shape"]).astype(np.float32)


@cache
def static_embedder() -> Result[StaticEmbedder, DenseError]:
    """The static model, loaded once per process, or why it cannot be (``pip install wordllama``).

    >>> result = static_embedder()
    >>> result.unwrap().model_id if result.map(bool).value_or(False) else result.failure().message
    'wordllama-l2-supercat-256/512'
    """
    for module in ("numpy", "tokenizers", STATIC_PACKAGE):
        if importlib.util.find_spec(module) is None:
            return Failure(DenseUnavailable(module))
    spec = importlib.util.find_spec(STATIC_PACKAGE)
    if spec is None or spec.origin is None:
        return Failure(DenseUnavailable(STATIC_PACKAGE))
    folder = Path(spec.origin).parent
    files: list[bytes] = []
    for relative, digest in (_WEIGHTS, _TOKENIZER):
        path = folder / relative
        try:
            data = path.read_bytes()
        except OSError as exc:
            return Failure(DenseModelInvalid(str(path), exc.strerror or str(exc), exc))
        if (actual := hashlib.sha256(data).hexdigest()) != digest:
            return Failure(DenseModelInvalid(str(path), f"sha256 {actual} differs from the expected {digest}"))
        files.append(data)
    from tokenizers import Tokenizer

    try:
        table = safetensors_table(files[0], "embedding.weight")
        tokenizer = Tokenizer.from_str(files[1].decode("utf-8"))
    except (ValueError, KeyError, struct.error) as exc:
        return Failure(DenseModelInvalid(str(folder), f"cannot read the static model: {exc}", exc))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=STATIC_MAX_LENGTH)
    return Success(StaticEmbedder(STATIC_MODEL_ID, int(table.shape[1]), table, tokenizer))
