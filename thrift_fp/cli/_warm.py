"""The question's embedding model, loaded on a second thread while ``ask`` starts (issue 35).

A hybrid ``ask`` must load its model before it can embed the question: importing onnxruntime and
building its session is ~40% of such a process. The session is built in C++ with the GIL
released, so on a second core it costs the answer little wall time if it starts as soon as the
index is known, while this thread imports the library's layers and builds the vocabulary. The
search then finds the model loaded (`thrift_fp.sources.dense.default_embedder` is loaded once per
process). Nothing changes in what is ranked or how: the thread calls the loader the search would
call, for the model the index's vectors are of; it is waited for before the search starts, so the
search never sees a half-loaded model, and a failure to load is left for the search to report.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


def warm_model(database: Path) -> Callable[[], None]:
    """Start loading, on a thread, the model whose vectors the SQLite index ``database`` holds
    (nothing for an index without vectors, or no index); the function returned waits for it.

    >>> wait = warm_model(Path("/nonexistent.db"))
    >>> wait()
    """
    thread = threading.Thread(target=_load, args=(database,), name="thrift-fp-model", daemon=False)
    thread.start()
    return thread.join


def _load(database: Path) -> None:
    from thrift_fp.sources.dense._embedder import embedder_of_model, missing_runtime  # noqa: PLC0415
    from thrift_fp.sources.sqlite._dense import held_model  # noqa: PLC0415

    held = held_model(database)
    if held is None or missing_runtime() is not None:
        return  # ranked lexically: no model is loaded (the search says why)
    embedder_of_model(held)  # cached for the search; a failure is its to report
