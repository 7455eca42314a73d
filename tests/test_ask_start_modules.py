"""The `thrift-fp ask` command itself, in a fresh interpreter on an SQLite index, loads no code
for what it does not do: the document readers and the PostgreSQL verbs are `index`'s and a URL's
(issue 35: ~10 ms of each `ask`), the shipped vocabulary's reader is for a process without the
rank cache (~2 ms), and beartype is the public boundary's, which a command's
internal calls never cross (issue 35: ~0.2 s of each `ask`; tests/test_internal_calls_unchecked.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from thrift_fp.sources import index_paths

_COMMAND = """
import contextlib, io, json, sys
from thrift_fp.cli import run
shown = io.StringIO()
with contextlib.redirect_stdout(shown):
    status = run(sys.argv[1:])
print(json.dumps({"status": status, "output": shown.getvalue(), "loaded": sorted(
    name for name in sys.modules
    if name.startswith(("thrift_fp.sources.documents", "thrift_fp.cli._postgres", "thrift_fp.sources.postgres._assemble",
                        "thrift_fp.sources.postgres._index", "thrift_fp.sources.postgres._search", "beartype",
                        "gzip", "importlib.resources"))
)}))
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lexical index of one page about shedding."""
    root = tmp_path_factory.mktemp("ask")
    (root / "docs").mkdir()
    (root / "docs" / "shed.md").write_text("# Shedding\n\nShedding drops the lowest score first.\n")
    index_paths(root / "index.db", [root / "docs"], dense=False).unwrap()
    return root / "index.db"


def _run_in_a_child(*argv: str) -> dict[str, object]:
    """``thrift-fp ARGV`` in a fresh interpreter (no claw: production): its status, standard output
    and the modules it loaded among those it should not."""
    done = subprocess.run([sys.executable, "-c", _COMMAND, *argv], capture_output=True, text=True, check=True)
    shown: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return shown


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """`thrift-fp count` in a fresh interpreter: it also fills the rank cache, if empty, for the ask below."""
    note = tmp_path_factory.mktemp("count") / "note.txt"
    note.write_text("three tokens here")
    return _run_in_a_child("count", str(note))


def test_ask_on_an_sqlite_index_loads_no_document_reader_nor_postgres_verb_nor_beartype(
    index: Path, counted: dict[str, object],
) -> None:
    shown = _run_in_a_child("ask", "shedding", "--db", str(index), "--lexical", "--json")
    assert shown["status"] == 0
    assert shown["loaded"] == []
    answer = json.loads(str(shown["output"]))
    assert "Shedding drops the lowest score first." in answer["context"]


def test_count_loads_no_beartype(counted: dict[str, object]) -> None:
    # Its reading of the shipped vocabulary (gzip) depends on whether the rank cache was filled.
    assert (counted["status"], counted["output"]) == (0, "3\n")
    loaded = counted["loaded"]
    assert isinstance(loaded, list) and [name for name in loaded if name.startswith("beartype")] == []
