"""The `thrift-fp ask` command itself, in a fresh interpreter on an SQLite index, loads no code
for what it does not do: the document readers and the PostgreSQL verbs are `index`'s and a URL's
(issue 35: ~10 ms of each `ask`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from thrift_fp.sources import index_paths

_COMMAND = """
import json, sys
from thrift_fp.cli import run
status = run(["ask", "shedding", "--db", sys.argv[1], "--lexical", "--json"])
print(json.dumps({"status": status, "loaded": sorted(
    name for name in sys.modules
    if name.startswith(("thrift_fp.sources.documents", "thrift_fp.cli._postgres", "thrift_fp.sources.postgres._assemble",
                        "thrift_fp.sources.postgres._index", "thrift_fp.sources.postgres._search"))
)}))
"""


def test_ask_on_an_sqlite_index_loads_no_document_reader_nor_postgres_verb(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "shed.md").write_text("# Shedding\n\nShedding drops the lowest score first.\n")
    index_paths(tmp_path / "index.db", [tmp_path / "docs"], dense=False).unwrap()
    done = subprocess.run(
        [sys.executable, "-c", _COMMAND, str(tmp_path / "index.db")], capture_output=True, text=True, check=True,
    )
    shown = json.loads(done.stdout.splitlines()[-1])
    assert shown["status"] == 0
    assert shown["loaded"] == []
