"""The question's embedding model, loaded on a second thread while ``ask`` starts (issue 35).

A hybrid ``ask`` must load its model before it can embed the question: importing onnxruntime and
building its session is ~40% of such a process. The session is built in C++ with the GIL
released, so on a second core it costs the answer little wall time if it starts as soon as the
index is known, while this thread imports the library's layers and builds the vocabulary. The
search then finds the model loaded (`thrift_fp.sources.dense.default_embedder` is loaded once per
process). Nothing changes in what is ranked or how: the thread asks the index which ranking a
search runs (`thrift_fp.sources.search_ranking`), which loads the model its vectors are of, as the
search would; it is waited for before the search starts, so the search never sees a half-loaded
model, and a failure to load is left for the search to report.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


def warm_model(database: Path, one_question: bool = False) -> Callable[[], None]:
    """Start loading, on a thread, the model whose vectors the SQLite index ``database`` holds
    (nothing for an index without vectors, or no index), with its session for one question when
    ``one_question`` (`thrift_fp.sources.dense.OneQuestion`); the function returned waits for it.

    >>> wait = warm_model(Path("/nonexistent.db"))
    >>> wait()
    """
    thread = threading.Thread(target=_load, args=(database, one_question), name="thrift-fp-model", daemon=False)
    thread.start()
    return thread.join


def _load(database: Path, one_question: bool) -> None:
    from thrift_fp.sources.sqlite import search_ranking  # noqa: PLC0415 - the library loads on use
    from thrift_fp.sources.dense import OneQuestion  # noqa: PLC0415

    # Which ranking the search will run: deciding it loads (and keeps, for the search) the model
    # the index's vectors are of, with its session for one question as `ask` searches; an index
    # without vectors loads none. A failure (no index, a model that cannot load) is the search's
    # to report.
    search_ranking(database, OneQuestion() if one_question else True)
