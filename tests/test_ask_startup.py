"""What one `ask` process loads: nothing it will not use (issue 35, "answer in a blink").

Each check runs in a fresh interpreter, as `thrift-fp ask` does: loading the dense model for an
index that holds no vectors cost about a third of such a process, asyncio a few percent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from thrift_fp.sources import index_paths

_ASK = """
import json, sys
from pathlib import Path
from thrift_fp.sources import assemble, search_ranking
from thrift_fp.thrift import ThriftOptions
done = assemble(["shedding"], database=Path(sys.argv[1]), context_window=2000,
                options=ThriftOptions(refill=True), dense=True).unwrap()
ranking = search_ranking(Path(sys.argv[1]), dense=True).unwrap().as_json()
print(json.dumps({"kept": len(done.decisions), "ranking": ranking,
                  "loaded": sorted({"onnxruntime", "numpy", "tokenizers", "asyncio", "snowballstemmer"} & set(sys.modules))}))
"""


def _asked_in_a_child(script: str, root: Path) -> subprocess.CompletedProcess[str]:
    """``script`` run by a fresh interpreter on a lexical index of one page about shedding."""
    (root / "docs").mkdir()
    (root / "docs" / "shed.md").write_text("# Shedding\n\nShedding drops the lowest score first.\n")
    index_paths(root / "index.db", [root / "docs"], dense=False).unwrap()
    return subprocess.run([sys.executable, "-c", script, str(root / "index.db")], capture_output=True, text=True, check=True)


def test_a_lexical_index_is_answered_without_the_model_numpy_or_asyncio(tmp_path: Path) -> None:
    # Nor snowballstemmer's package: it imports all 30 languages; the English stemmer loads alone.
    answer = _asked_in_a_child(_ASK, tmp_path)
    shown = json.loads(answer.stdout)
    assert shown["kept"] == 1 and shown["loaded"] == []
    assert shown["ranking"]["ranking"] == "lexical"
    assert "no complete set of vectors" in shown["ranking"]["ranking_reason"] or "[dense] extra" in (
        shown["ranking"]["ranking_reason"]
    )


def test_an_index_whose_vectors_are_being_made_still_says_how_far_they_are() -> None:
    # The check that spares the model for a lexical index must not hide a run in progress.
    import sqlite3
    from contextlib import closing

    import pytest

    from thrift_fp.sources.dense import default_embedder
    from thrift_fp.sources.sqlite._dense import TOTAL_KEY, VECTORS, ranking_of
    from thrift_fp.sources.sqlite._held import PENDING_KEY

    model = default_embedder()
    if not model.map(bool).value_or(False):
        pytest.skip("needs the [dense] extra")
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        connection.execute(VECTORS)
        assert ranking_of(connection, True)[0].reason == (
            "the index holds no complete set of vectors: index it again with the [dense] extra installed"
        )
        connection.executemany("INSERT INTO meta VALUES (?, ?)", [(PENDING_KEY, model.unwrap().model_id), (TOTAL_KEY, "3")])
        connection.execute("INSERT INTO dense_vectors VALUES ('a', x'00')")
        ranking, embedder = ranking_of(connection, True)
        assert embedder is None and ranking.incomplete == (1, 3)


_FACES = """
import sys
import thrift_fp.records, thrift_fp.tokens, thrift_fp.thrift, thrift_fp.render, thrift_fp.retrieval
imported = "beartype" in sys.modules
from thrift_fp.tokens import count_tokens
try:
    count_tokens(123)
except Exception as error:
    refused = type(error).__module__.split(".")[0]
print(imported, refused)
"""


def test_importing_the_faces_loads_no_beartype_until_a_checked_call() -> None:
    # beartype's decorator machinery (about 320 modules) is loaded by the first checked call,
    # not by importing a package: the checks stay on (the wrong call below is still refused).
    shown = subprocess.run([sys.executable, "-c", _FACES], capture_output=True, text=True, check=True).stdout.split()
    assert shown == ["False", "beartype"]


_CLI_ASK = """
import sys
from thrift_fp.cli import run
status = run(["ask", "shedding", "--db", sys.argv[1], "--max-results", "3", "-q", "lowest score"])
print(status, "pydantic" in sys.modules, file=sys.stderr)
"""


def test_the_command_takes_plain_values_without_pydantic(tmp_path: Path) -> None:
    # typer coerces each value through a pydantic adapter (~90 ms of an ask, pydantic's import
    # included); strings and whole numbers are taken as they are (thrift_fp.cli._coercion).
    answer = _asked_in_a_child(_CLI_ASK, tmp_path)
    assert answer.stderr.split()[-2:] == ["0", "False"], answer.stderr
    assert "Shedding drops the lowest score first." in answer.stdout
