"""Each answered passage shows where it comes from: its heading path, escaped and priced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.render import KeyedNonce
from thrift_fp.sources import assemble, index_paths
from thrift_fp.tokens import get_encoding


@pytest.fixture
def database(tmp_path: Path) -> Path:
    (tmp_path / "fs.md").write_text(
        '# fs\n\n## Promises API\n\n### fsPromises.readFile(path) <"&>\n\n'
        "Reads the entire contents of a file.\n"
    )
    index_paths(tmp_path / "i.db", [tmp_path]).unwrap()
    return tmp_path / "i.db"


def test_assemble_shows_the_heading_path_escaped_and_charges_exactly_what_it_renders(database: Path) -> None:
    done = assemble("read the contents of a file", database=database, nonce=KeyedNonce(b"k" * 32)).unwrap()
    assert 'heading="fs › Promises API › fsPromises.readFile(path) &lt;&quot;&amp;&gt;"' in done.text
    assert [d.record.heading for d in done.decisions] == ['fs › Promises API › fsPromises.readFile(path) <"&>']
    counted = get_encoding("cl100k_base").unwrap().count(done.text).unwrap()
    assert done.tokens == counted == done.fixed + sum(d.rendered or 0 for d in done.decisions if d.kept)


def test_ask_json_gives_each_passage_its_heading_path(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "read the contents of a file", "--db", str(database), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [d["heading"] for d in shown["decisions"]] == ['fs › Promises API › fsPromises.readFile(path) <"&>']
    assert shown["ranking"] in {"lexical", "hybrid"}
