"""An index run never leaves its roots: a symbolic link whose target is outside every folder
being indexed is not read and is listed with its reason; a link inside the roots is followed
once (no loop, no file twice); both stores select alike."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import LinkNotFollowed, index_paths, search_index, select_files

CANARY = "canary7f3e deploy key that must never reach an agent"


def _outside_and_docs(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_deploy.md").write_text(f"# Key\n\n{CANARY}\n")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "install.md").write_text("# Install\n\nRun the installer, then restart.\n")
    (docs / "leak.md").symlink_to(outside / "id_deploy.md")
    (docs / "vendor").symlink_to(outside, target_is_directory=True)
    return outside, docs


def test_a_link_out_of_the_roots_is_not_read_and_is_listed_with_its_reason(tmp_path: Path) -> None:
    outside, docs = _outside_and_docs(tmp_path)
    report = index_paths(tmp_path / "i.db", [docs]).unwrap()
    assert [(Path(item.path).name, type(item.error)) for item in report.skipped] == [
        ("vendor", LinkNotFollowed), ("leak.md", LinkNotFollowed)
    ]
    assert all("outside the folders being indexed" in item.message for item in report.skipped)
    assert str(outside) in report.skipped[1].message
    assert report.chunked == (str(docs / "guide" / "install.md"),)
    assert search_index(tmp_path / "i.db", "canary7f3e deploy key").unwrap() == ()


def test_the_cli_counts_and_lists_the_links_it_did_not_follow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, docs = _outside_and_docs(tmp_path)
    assert run(["index", str(docs), "--db", str(tmp_path / "i.db"), "--json"]) == 0
    skipped = json.loads(capsys.readouterr().out)["skipped"]
    assert [Path(item["path"]).name for item in skipped] == ["vendor", "leak.md"]
    assert all("a symbolic link to" in item["reason"] for item in skipped)


def test_a_strict_run_refuses_a_link_out_of_the_roots(tmp_path: Path) -> None:
    _, docs = _outside_and_docs(tmp_path)
    error = index_paths(tmp_path / "i.db", [docs], strict=True).failure()
    assert "vendor" in error.message and "(and 1 more)" in error.message and not (tmp_path / "i.db").exists()


def test_naming_the_target_folder_too_reads_it_once_under_its_own_name(tmp_path: Path) -> None:
    outside, docs = _outside_and_docs(tmp_path)
    selection = select_files([docs, outside]).unwrap()
    assert [found.label for found in selection.files] == ["docs/guide/install.md", "outside/id_deploy.md"]
    assert [item.message.split(", ", 1)[1] for item in selection.skipped] == [
        "already indexed as outside/", "already indexed as outside/id_deploy.md"
    ]


def test_a_linked_folder_inside_the_roots_is_followed_once_even_through_a_loop(tmp_path: Path) -> None:
    # Debian's git documentation: /usr/share/doc/git/html -> ../git-doc, here under one root.
    share = tmp_path / "doc"
    (share / "git-doc").mkdir(parents=True)
    (share / "git-doc" / "git-rebase.txt").write_text("Reapply commits on top of another base tip.\n")
    (share / "git").mkdir()
    (share / "git" / "RelNotes.txt").write_text("Release notes.\n")
    (share / "git" / "html").symlink_to("../git-doc", target_is_directory=True)
    (share / "git-doc" / "back").symlink_to("..", target_is_directory=True)  # a loop back to the root

    alone = select_files([share / "git"]).unwrap()
    assert [found.label for found in alone.files] == ["git/RelNotes.txt"]
    assert [Path(item.path).name for item in alone.skipped] == ["html"]

    both = select_files([share / "git", share / "git-doc"]).unwrap()
    assert sorted(found.label for found in both.files) == ["git-doc/git-rebase.txt", "git/RelNotes.txt"]

    whole = select_files([share]).unwrap()
    assert [found.label for found in whole.files] == ["doc/git/RelNotes.txt", "doc/git-doc/git-rebase.txt"]
    assert sorted(item.message.rsplit(", ", 1)[1] for item in whole.skipped) == [
        "already indexed as doc/", "already indexed as doc/git-doc/"
    ]


def test_a_link_to_a_folder_nothing_else_reaches_is_read_under_the_links_name(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / ".generated" / "api").mkdir(parents=True)  # hidden: the plain walk never enters it
    (docs / ".generated" / "api" / "fs.md").write_text("# fs\n\nRead a file.\n")
    (docs / "api").symlink_to(".generated/api", target_is_directory=True)
    (docs / "same.md").symlink_to(".generated/api/fs.md")
    selection = select_files([docs]).unwrap()
    assert [(found.label, found.path) for found in selection.files] == [
        ("docs/api/fs.md", (docs / ".generated" / "api" / "fs.md").resolve())
    ]
    assert [item.message.rsplit(", ", 1)[1] for item in selection.skipped] == ["already indexed as docs/api/fs.md"]


def test_a_file_swapped_for_a_link_after_the_selection_is_not_read(tmp_path: Path) -> None:
    outside, docs = _outside_and_docs(tmp_path)
    victim = docs / "guide" / "install.md"
    from thrift_fp.sources.documents._files import read_selected  # noqa: PLC0415 - the guard itself

    victim.unlink()
    victim.symlink_to(outside / "id_deploy.md")
    with pytest.raises(OSError):
        read_selected(victim)


def test_a_folder_swapped_for_a_link_and_back_around_the_open_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race O_NOFOLLOW misses: a folder on the path is a link out of the roots when the file
    # is opened, and a folder again when the path is checked after.
    from thrift_fp.sources.documents import _files  # noqa: PLC0415 - the guard itself

    outside, docs = _outside_and_docs(tmp_path)
    (outside / "install.md").write_text(f"# Key\n\n{CANARY}\n")
    selected = select_files([docs]).unwrap()
    victim = next(found.path for found in selected.files if found.path.name == "install.md")
    guide = victim.parent
    guide.rename(tmp_path / "guide.real")
    guide.symlink_to(outside, target_is_directory=True)
    real_open = os.open

    def open_then_swap_back(path: object, flags: int, *rest: object) -> int:
        descriptor = real_open(path, flags, *rest)  # type: ignore[arg-type]  # os.open's own arguments
        guide.unlink()
        (tmp_path / "guide.real").rename(guide)
        return descriptor

    monkeypatch.setattr(os, "open", open_then_swap_back)
    with pytest.raises(OSError, match="symbolic link"):
        _files.read_selected(victim)


@pytest.mark.skipif("THRIFT_FP_TEST_PG_URL" not in os.environ, reason="needs THRIFT_FP_TEST_PG_URL")
def test_postgresql_indexing_stays_inside_its_roots_too(pg_url: str, tmp_path: Path) -> None:
    from thrift_fp.sources import postgres  # noqa: PLC0415 - the postgres extra

    _, docs = _outside_and_docs(tmp_path)
    with postgres.open_database(pg_url, create=True).unwrap() as database:
        report = postgres.index_paths(database, [docs]).unwrap()
        assert [Path(item.path).name for item in report.skipped] == ["vendor", "leak.md"]
        assert all(isinstance(item.error, LinkNotFollowed) for item in report.skipped)
        assert postgres.search_index(database, "canary7f3e deploy key").unwrap() == ()
        assert [hit.source for hit in postgres.search_index(database, "installer restart").unwrap()] == [
            "docs/guide/install.md"
        ]
