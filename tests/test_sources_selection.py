"""Which files a run reads (globs, .gitignore, HTML in folders) and pruning."""

from __future__ import annotations

from pathlib import Path

from thrift_fp.cli import run
from thrift_fp.sources import index_paths, search_index, select_files


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _labels(root: Path, **options: object) -> list[str]:
    return [found.label for found in select_files([root], **options).unwrap().files]  # type: ignore[arg-type]  # test helper


def test_include_and_exclude_globs_pick_files_and_folders(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "docs", {
        "a.md": "a", "b.rst": "b", "c.py": "c", "api/d.html": "d", "api/e.htm": "e", "vendor/f.md": "f",
        "notes/g.txt": "g", ".hidden/h.md": "h", "i.png": "i",
    })
    assert _labels(docs) == [
        "docs/a.md", "docs/b.rst", "docs/api/d.html", "docs/api/e.htm", "docs/notes/g.txt", "docs/vendor/f.md"
    ]
    assert _labels(docs, include=["*.py", "api/*.html"]) == ["docs/c.py", "docs/api/d.html"]
    assert _labels(docs, exclude=["vendor/", "*.htm", "notes"]) == ["docs/a.md", "docs/b.rst", "docs/api/d.html"]


def test_gitignore_files_apply_below_their_folder_with_negation(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "docs", {
        ".gitignore": "build/\n*.txt\n!keep.txt\n", "a.md": "a", "keep.txt": "k", "drop.txt": "d",
        "build/b.md": "b", "sub/.gitignore": "local.md\n", "sub/local.md": "l", "sub/other.md": "o",
        "sub/drop2.txt": "d",
    })
    assert _labels(docs) == ["docs/a.md", "docs/keep.txt", "docs/sub/other.md"]
    assert "docs/build/b.md" in _labels(docs, gitignore=False)


def test_a_file_named_directly_is_taken_whatever_the_globs(tmp_path: Path) -> None:
    script = _tree(tmp_path, {"tool.py": "print('budget')"}) / "tool.py"
    assert [f.label for f in select_files([script], exclude=["*.py"]).unwrap().files] == ["tool.py"]


def test_a_folder_of_html_is_indexed_as_text_without_markup(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "site", {
        "index.html": "<html><head><style>p{}</style></head><body><h1>HTTP</h1>"
                      "<p>Use <code>http.createServer()</code> to create a server.</p><script>track()</script></body></html>",
    })
    report = index_paths(tmp_path / "i.db", [docs]).unwrap()
    assert report.passages == 1
    (hit,) = search_index(tmp_path / "i.db", "create a server").unwrap()
    assert hit.text == "HTTP\n\nUse http.createServer() to create a server." and hit.kind == "html"
    assert hit.heading_path == ("HTTP",)


def test_a_renamed_file_and_a_renamed_folder_are_pruned(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "docs", {"a.md": "# A\n\nalpha budget", "b.md": "# B\n\nbeta budget"})
    db = tmp_path / "i.db"
    first = index_paths(db, [docs]).unwrap()
    (docs / "a.md").rename(docs / "a2.md")
    renamed = index_paths(db, [docs]).unwrap()
    assert renamed.removed == (str((docs / "a.md").resolve()),) and renamed.passages == first.passages
    moved = docs.rename(tmp_path / "guide")
    # The old folder is not named again: its files no longer exist, so they leave in the same run.
    report = index_paths(db, [moved]).unwrap()
    assert report.passages == first.passages and len(report.removed) == 2
    assert {h.source for h in search_index(db, "budget").unwrap()} == {"guide/a2.md", "guide/b.md"}


def test_a_newly_excluded_file_leaves_the_index(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "docs", {"a.md": "alpha budget", "b.md": "beta budget"})
    db = tmp_path / "i.db"
    assert run(["index", str(docs), "--db", str(db)]) == 0
    assert run(["index", str(docs), "--db", str(db), "--exclude", "b.md"]) == 0
    assert [h.source for h in search_index(db, "budget").unwrap()] == ["docs/a.md"]
