"""A question embedded ahead, in a second process, while ``thrift-fp ask`` loads everything else (issue 35).

A hybrid ``ask`` must import onnxruntime, build the default model's session and run it on the
question: some 300 ms of CPU, nearly all of it holding the GIL or contending for it with the main
thread's own imports, so a second thread saves little (BENCHMARKS.md §21). A second *process*
shares no GIL: started as soon as ``ask`` knows its index holds the default model's vectors, it
embeds the question on the other core while ``ask`` imports the library, builds the vocabulary and
ranks lexically, and hands back the vector as a `Prefetched` embedder.

Nothing changes in what is ranked: the child loads the same model with the same session as the
search would (`default_embedder` with ``one_question=True``) and embeds the question as the
retrieval normalises it; the vector's bytes are the ones the search would have made. Any failure
(no answer, another model, a malformed vector, a package imported from elsewhere) leaves ``ask`` on
its own path, which loads the model itself and reports what it meets. The question travels on
the child's standard input, never on its command line (where other users' ``ps`` would show it);
the child is started with ``-P``, so a ``thrift_fp`` folder in the current directory is never
imported, and writes nothing but its answer.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence

from pathlib import Path
from types import MappingProxyType
from typing import Final, NoReturn

from returns.result import Failure

from thrift_fp._value import value
from thrift_fp.sources.dense._embedder import Embedder
from thrift_fp.sources.dense._scored import ScoredAhead, scored_from_json

# How long ``ask`` waits for the child once it needs the vector: a loaded machine can take
# seconds to build a session, and waiting costs no more than loading the model here would.
WAIT_SECONDS: Final = 60.0
# The child's program: this module's `main` (by import, not ``-m``: the package, which exports
# this module's names, would otherwise load it twice).
_CHILD: Final = "from thrift_fp.sources.dense._ahead import main, leave; leave(main())"
# The package this module belongs to: the child must import the very same one.
_PACKAGE: Final = Path(__file__).resolve().parents[2]


@value
class Prefetched:
    """The default model, with the vectors of some texts already made (by `EmbedAhead`'s child),
    and, where the child ranked the index too, the question's dense candidates (``scored``).

    ``embed`` answers those texts from ``vectors`` and loads the model itself (once per process,
    its session for one question) for any other text.

    >>> import struct
    >>> ahead = Prefetched("all-MiniLM-L6-v2-int8/128", 1, MappingProxyType({"q": struct.pack("<f", 1.0)}))
    >>> ahead.embed(["q"]) == (struct.pack("<f", 1.0),)
    True
    """

    model_id: str
    dimensions: int
    vectors: Mapping[str, bytes]
    scored: ScoredAhead | None = None

    def embed(self, texts: Sequence[str]) -> Sequence[bytes]:
        """Each text's vector: made ahead where it was, by the model itself otherwise."""
        if all(text in self.vectors for text in texts):
            return tuple(self.vectors[text] for text in texts)
        from thrift_fp.sources.dense._embedder import default_embedder  # noqa: PLC0415 - loaded only if needed

        loaded = default_embedder(one_question=True)
        if isinstance(loaded, Failure):
            raise RuntimeError(loaded.failure().message)
        model = loaded.unwrap()
        if model.model_id != self.model_id:
            raise RuntimeError(f"the default model is {model.model_id}, not {self.model_id}")
        return model.embed(texts)


class EmbedAhead:
    """A child process embedding one question with the default model (see the module docstring).

    >>> import sys
    >>> EmbedAhead("shedding", command=[sys.executable, "-c", "pass"]).result() is None
    True
    """

    def __init__(
        self, question: str, *, command: Sequence[str] | None = None, cache: Path | None = None,
        program: str = _CHILD, extra: Mapping[str, object] = MappingProxyType({}),
    ) -> None:
        self.question = question
        # ``cache``: the folder of the prepared model (`_prepared.use_model_cache`), if any;
        # ``program`` and ``extra``: a store's child (`answer_ahead`) and what it needs to know.
        request = json.dumps({
            **extra, "question": question, "package": str(_PACKAGE), "cache": None if cache is None else str(cache),
        }).encode("utf-8")
        try:
            self._child: subprocess.Popen[bytes] | None = subprocess.Popen(
                list(command) if command is not None else [sys.executable, "-P", "-c", program],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_child_environment(),
            )
        except OSError:
            self._child = None
            return
        stdin, self._child.stdin = self._child.stdin, None  # closed here: `communicate` must not flush it
        try:
            # The request is far smaller than a pipe's buffer: writing it cannot wait for the child.
            if stdin is not None:
                with stdin:
                    stdin.write(request)
        except OSError:
            pass  # the child is gone already: `result` finds no answer

    def result(self, timeout: float = WAIT_SECONDS) -> Prefetched | None:
        """The question's vector as a `Prefetched` embedder, or ``None`` (the search then embeds it)."""
        child, self._child = self._child, None
        if child is None:
            return None
        try:
            answer, _ = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return None
        if child.returncode != 0:
            return None
        return prefetched(self.question, answer)

    def close(self) -> None:
        """Stop the child if its answer was never taken (``ask`` failed before its search).

        >>> import sys
        >>> ahead = EmbedAhead("q", command=[sys.executable, "-c", "import time; time.sleep(30)"])
        >>> ahead.close(); ahead.result() is None
        True
        """
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.kill()
            child.communicate()


def _child_environment() -> dict[str, str]:
    """This process's environment, with numpy's OpenBLAS on one thread unless the user chose.

    The child multiplies no matrices (onnxruntime runs its own kernels), but importing numpy starts
    an OpenBLAS thread per core that spins a while: ~100 ms of CPU taken from ``ask`` itself on a
    two-core machine (BENCHMARKS.md §21).

    >>> _child_environment()["OPENBLAS_NUM_THREADS"] != ""
    True
    """
    environment = dict(os.environ)
    environment.setdefault("OPENBLAS_NUM_THREADS", "1")
    return environment


def prefetched(question: str, answer: bytes) -> Prefetched | None:
    """The child's ``answer`` (one JSON object) as a `Prefetched` for ``question``; ``None`` when it is
    not one vector of the default model, of its width.

    >>> import base64, json, struct
    >>> from thrift_fp.sources.dense._embedder import DEFAULT_MODEL_ID
    >>> vector = base64.b64encode(struct.pack("<2f", 0.6, 0.8)).decode()
    >>> good = {"model_id": DEFAULT_MODEL_ID, "dimensions": 2, "vector": vector}
    >>> prefetched("q", json.dumps(good).encode()).dimensions
    2
    >>> prefetched("q", json.dumps(good | {"dimensions": 3}).encode()) is None
    True
    >>> prefetched("q", b"not json") is None
    True
    """
    from thrift_fp.sources.dense._embedder import DEFAULT_MODEL_ID  # noqa: PLC0415 - not onnxruntime

    try:
        shown = json.loads(answer)
        model_id, dimensions, vector = shown["model_id"], shown["dimensions"], base64.b64decode(shown["vector"], validate=True)
    except (ValueError, TypeError, KeyError, binascii.Error):
        return None
    if model_id != DEFAULT_MODEL_ID or type(dimensions) is not int or dimensions <= 0 or len(vector) != 4 * dimensions:
        return None
    # The dense candidates, where the child ranked them: a malformed part is only left out (the
    # search then ranks densely itself), the vector is still good.
    scored = scored_from_json(question, shown.get("scored")) if "scored" in shown else None
    return Prefetched(model_id, dimensions, MappingProxyType({question: vector}), scored)


Finish = Callable[[Embedder, str, bytes], "dict[str, object] | None"]
"""A store's second step in `answer_ahead`: ``finish(model, question, vector)`` returns a JSON-able
value sent under ``"scored"`` (`scored_json`), or ``None``."""

Scorer = Callable[[Mapping[str, object]], "Finish | None"]
"""What a store's child adds to `answer_ahead`'s answer, in two steps: ``score(request)`` runs on a
second thread while the model's session builds (a store reads its vectors then: onnxruntime
builds the session without the GIL) and returns a `Finish`, or ``None`` for nothing to add. It
must import nothing (numpy and onnxruntime are loaded before it starts; a store's child imports
its own modules first): an import racing the main thread's can fail."""


def answer_ahead(score: Scorer | None = None) -> int:
    """The child: read ``{"question", "package", "cache", ...}`` on standard input, write the
    question's vector with the model's id and width on standard output, and what ``score`` adds
    (a store's dense candidates: ``thrift_fp.sources.sqlite._ahead``); exit status 1, writing
    nothing, on any failure to embed (a failure of ``score`` only leaves its part out)."""
    import thrift_fp  # noqa: PLC0415
    from thrift_fp.sources.dense._embedder import default_embedder  # noqa: PLC0415
    from thrift_fp.sources.dense._prepared import use_model_cache  # noqa: PLC0415
    from thrift_fp.sources.dense._private import private_onnxruntime  # noqa: PLC0415

    try:
        request = json.loads(sys.stdin.buffer.read())
        question, package, cache = request["question"], request["package"], request.get("cache")
    except (ValueError, TypeError, KeyError, AttributeError):
        return 1
    # The vector must be the one the parent's own package would make.
    if not isinstance(question, str) or Path(thrift_fp.__file__).resolve().parent != Path(str(package)):
        return 1
    if score is not None:
        # onnxruntime (and numpy with it) is imported here, before the store's thread starts:
        # numpy imported on two threads at once can fail ("import numpy failed" from onnxruntime).
        try:
            private_onnxruntime()
        except ImportError:
            return 1
    # The store's first step beside the model's session (onnxruntime builds it without the GIL).
    started = _beside(score, request) if score is not None else None
    if isinstance(cache, str) and cache:
        folder = Path(cache)
        use_model_cache(lambda: folder)
    loaded = default_embedder(one_question=True)
    if isinstance(loaded, Failure):
        return 1
    model = loaded.unwrap()
    try:
        (vector,) = model.embed([question])
    except Exception:  # noqa: BLE001 - any failure leaves the parent on its own path
        return 1
    shown: dict[str, object] = {
        "model_id": model.model_id, "dimensions": model.dimensions, "vector": base64.b64encode(vector).decode("ascii"),
    }
    finish = started() if started is not None else None
    if finish is not None:
        try:
            scored = finish(model, question, vector)
        except Exception:  # noqa: BLE001 - the parent ranks densely itself
            scored = None
        if scored is not None:
            shown["scored"] = scored
    sys.stdout.write(json.dumps(shown))
    return 0


def _beside(score: Scorer, request: Mapping[str, object]) -> Callable[[], Finish | None]:
    """Run ``score(request)`` on a second thread; the function returned waits for its `Finish`
    (``None`` where it raised: the parent then ranks densely itself).

    >>> _beside(lambda request: None, {})() is None
    True
    """
    done: list[Finish | None] = [None]

    def run() -> None:
        try:
            done[0] = score(request)
        except Exception:  # noqa: BLE001 - the vector is still sent; the ranking is left out
            done[0] = None

    # A daemon: the child leaves by `leave` (os._exit) whatever the thread is doing.
    thread = threading.Thread(target=run, name="thrift-fp-scorer", daemon=True)
    thread.start()

    def joined() -> Finish | None:
        thread.join()
        return done[0]

    return joined


def main() -> int:
    """The child for the vector alone (`answer_ahead` with no store's part)."""
    return answer_ahead()


def leave(status: int) -> NoReturn:
    """End the child with ``status`` once its answer is out, without the interpreter's teardown.

    The parent reads the answer until the child exits; the teardown (onnxruntime, its session,
    the mapped weights, numpy's modules) was 60-80 ms of that wait (whole child processes timed
    both ways), and the child holds nothing that needs closing: its one file, the prepared copy,
    is complete before it is renamed into place.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
