"""Answers without repeats: a page and its HTML twin, or a copied section, are answered once."""

from __future__ import annotations

from pathlib import Path

from thrift_fp.sources import assemble, index_paths, search_index

_TEXT = (
    "Reads the entire contents of a file and resolves the promise with them. The encoding option "
    "decides whether the contents arrive as a string or as a buffer, and a signal can abort the read."
)


def test_a_page_and_its_html_twin_are_answered_once_keeping_the_best_scored(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fs.md").write_text(f"# fsPromises.readFile\n\n{_TEXT.replace('file', '`file`')}\n")
    (docs / "fs.html").write_text(
        f"<html><body><h1>fsPromises.readFile</h1><p>{_TEXT}</p><button>copy</button></body></html>"
    )
    (docs / "other.md").write_text("# Writing\n\nWrites data to a file, replacing the file if it already exists.\n")
    index_paths(tmp_path / "i.db", [docs]).unwrap()
    hits = search_index(tmp_path / "i.db", "read the contents of a file").unwrap()
    (twin,) = [hit for hit in hits if Path(hit.path).stem == "fs"]  # the search itself answers once (issue 34)
    assert [copy.source for copy in twin.copies] == [
        "docs/fs.md" if twin.source == "docs/fs.html" else "docs/fs.html"
    ]  # and names the rendering it stands for
    done = assemble("read the contents of a file", database=tmp_path / "i.db").unwrap()
    answered = [str(d.record.source) for d in done.decisions]
    assert len([source for source in answered if Path(source).stem == "fs"]) == 1
    assert twin.source in answered and "docs/other.md" in answered
