"""Near-duplicates collapse: the `.html` and `.txt` renderings of one page (other markup and
indentation, the same words) are one passage for ranking, the budget and de-duplication, and
the answer names the copies it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from thrift_fp.sources import assemble, index_paths, search_index

_TXT = """git-stage(1)
============

NAME
----
git-stage - Add file contents to the staging area


SYNOPSIS
--------
[verse]
'git stage' <arg>...


DESCRIPTION
-----------

This is a synonym for linkgit:git-add[1].  Please refer to the
documentation of that command.

GIT
---
Part of the linkgit:git[1] suite
"""
_HTML = """<html><head><title>git-stage(1)</title></head><body><h1>git-stage(1) Manual Page</h1>
<h2>NAME</h2><p>git-stage - Add file contents to the staging area</p>
<h2>SYNOPSIS</h2><pre>git stage &lt;arg&gt;…</pre>
<h2>DESCRIPTION</h2><p>This is a synonym for <a href="git-add.html">git-add(1)</a>. Please refer to the
documentation of that command.</p><h2>GIT</h2><p>Part of the <a href="git.html">git(1)</a> suite</p>
<div id="footer">Last updated 2024-05-31 00:35:55 UTC</div></body></html>
"""


@pytest.fixture
def database(tmp_path: Path) -> Path:
    docs = tmp_path / "git-doc"
    docs.mkdir()
    (docs / "git-stage.txt").write_text(_TXT, encoding="utf-8")
    (docs / "git-stage.html").write_text(_HTML, encoding="utf-8")
    (docs / "git-add.txt").write_text("git-add(1)\n==========\n\nNAME\n----\ngit-add - Add file contents to the index\n")
    index_paths(tmp_path / "i.db", [docs], dense=False).unwrap()
    return tmp_path / "i.db"


def test_the_two_renderings_of_a_page_are_one_hit_naming_the_other(database: Path) -> None:
    hits = search_index(database, "add file contents to the staging area", dense=False).unwrap()
    stage = [hit for hit in hits if "git-stage" in hit.source]
    assert len(stage) == 1, [hit.passage_id for hit in hits]
    (copy,) = stage[0].copies
    assert {stage[0].source, copy.source} == {"git-doc/git-stage.txt", "git-doc/git-stage.html"}
    assert any(hit.source == "git-doc/git-add.txt" for hit in hits)  # another page is not a copy


def test_assemble_spends_the_budget_on_one_rendering(database: Path) -> None:
    done = assemble("add file contents to the staging area", database=database, dense=False).unwrap()
    sources = [decision.record.source for decision in done.decisions]
    assert sum("git-stage" in str(source) for source in sources) == 1, sources


def test_serve_names_the_copy_and_never_sends_it_later(database: Path) -> None:
    from thrift_fp.serve import SqliteBackend, serve_settings  # noqa: PLC0415 - the mcp extra
    from thrift_fp.serve._arguments import SearchRequest  # noqa: PLC0415
    from thrift_fp.serve._ledger import SessionLedger  # noqa: PLC0415
    from thrift_fp.serve._search import answer_search  # noqa: PLC0415

    settings = serve_settings().unwrap()
    backend = SqliteBackend(database, dense=False)
    ledger, first = answer_search(SessionLedger(), SearchRequest("add file contents to the staging area", 800, settings.tiers),
                                  backend, settings)
    rows = first.unwrap().structured["passages"]
    assert isinstance(rows, list)
    (stage,) = [row for row in rows if "git-stage" in str(row["source"])]
    assert len(stage["copies"]) == 1 and stage["copies"][0] != stage["id"]
    # Asked again in other words, the copy is not sent: it counts as sent with its twin.
    _, second = answer_search(ledger, SearchRequest("git stage synonym documentation", 800, settings.tiers),
                              backend, settings)
    later = second.unwrap().structured["passages"]
    assert isinstance(later, list) and not any("git-stage" in str(row["source"]) for row in later)
