"""Indexing never aborts on one file: each problem is reported with its reason, the rest is kept.

Tests run as root, and root reads a chmod-000 file, so the
"unreadable" file here is one no process can read: a symbolic link whose target is gone
(opening it fails with ENOENT). A real permission failure is shown separately, by running
the indexer as the unprivileged ``nobody`` user in a child process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import (
    BinaryFile,
    IndexProblems,
    UndecodableText,
    UnreadableFile,
    index_paths,
    search_index,
)


def _docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Budget\n\nThe budget is the window minus the reserve.\n")
    (docs / "also-good.txt").write_text("Shedding drops the lowest score first.\n")
    (docs / "blob.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (docs / "noise.txt").write_bytes(bytes(range(128, 256)) * 3)
    (docs / "gone.md").symlink_to(docs / "deleted-target.md")
    return docs


def test_a_binary_an_undecodable_and_an_unreadable_file_are_three_problems(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    report = index_paths(tmp_path / "index.db", [docs]).unwrap()
    reasons = {Path(s.path).name: type(s.error) for s in report.skipped}
    assert reasons == {"blob.txt": BinaryFile, "noise.txt": UndecodableText, "gone.md": UnreadableFile}
    assert sorted(Path(p).name for p in report.chunked) == ["also-good.txt", "good.md"]
    assert [h.passage_id for h in search_index(tmp_path / "index.db", "shedding").unwrap()] == [
        "docs/also-good.txt#1"
    ]
    messages = " | ".join(s.message for s in report.skipped)
    assert "NUL byte" in messages and "not UTF-8" in messages and "broken symbolic link" in messages


def test_strict_refuses_the_whole_run_and_writes_nothing(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    failed = index_paths(tmp_path / "index.db", [docs], strict=True).failure()
    assert isinstance(failed, IndexProblems) and len(failed.skipped) == 3
    assert "strict run: 3 files could not be indexed" in failed.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


def test_the_cli_lists_each_skipped_file_and_strict_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _docs(tmp_path)
    db = str(tmp_path / "index.db")
    assert run(["index", str(docs), "--db", db]) == 0
    out, err = capsys.readouterr()
    assert "2 chunked" in out and "3 skipped" in out
    # One line per file, each saying "skipped" once (a binary file's problem already says it).
    lines = err.splitlines()
    assert len(lines) == 3 and all(line.startswith("thrift-fp: skipped") for line in lines), lines
    assert all(line.count("skipped") == 1 for line in lines) and "blob.txt" in err
    assert run(["index", str(docs), "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {Path(item["path"]).name for item in report["skipped"]} == {"blob.txt", "noise.txt", "gone.md"}
    assert all(item["reason"] for item in report["skipped"])
    assert run(["index", str(docs), "--db", db, "--strict"]) == 1
    assert capsys.readouterr().err.splitlines()[-1].startswith("thrift-fp: error: strict run: 3 files")


def test_text_in_another_encoding_is_read_in_the_detected_one(tmp_path: Path) -> None:
    note = tmp_path / "cyrillic.txt"
    note.write_bytes("Бюджет окна минус резерв ответа. Это правило бюджета для всех запросов.".encode("cp1251"))
    report = index_paths(tmp_path / "index.db", [note]).unwrap()
    assert report.skipped == () and report.passages == 1
    (hit,) = search_index(tmp_path / "index.db", "резерв").unwrap()
    assert "Бюджет окна" in hit.text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_reported_and_never_opened(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("budget")
    os.mkfifo(tmp_path / "pipe.md")  # opening it for reading would block the run forever
    (skipped,) = index_paths(tmp_path / "index.db", [tmp_path]).unwrap().skipped
    assert skipped.message.endswith("not a regular file (a FIFO, socket or device)")


_AS_NOBODY = """
import json, sys
from pathlib import Path
from thrift_fp.sources import index_paths
report = index_paths(Path(sys.argv[1]) / "index.db", [Path(sys.argv[1]) / "docs"]).unwrap()
print(json.dumps([[s.path, s.message] for s in report.skipped] + [len(report.chunked)]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="needs POSIX users")
def test_a_file_without_read_permission_is_skipped(tmp_path: Path) -> None:
    root = Path(tempfile.mkdtemp(prefix="thrift-fp-perm-"))
    try:
        docs = root / "docs"
        docs.mkdir()
        (docs / "open.md").write_text("budget")
        (docs / "secret.md").write_text("budget")
        os.chmod(docs / "secret.md", 0)
        if os.geteuid() != 0:
            report = index_paths(root / "index.db", [docs]).unwrap()
            problems, chunked = [(s.path, s.message) for s in report.skipped], len(report.chunked)
        else:
            # Root reads any file; the unprivileged user meets the permission check for real.
            for folder in (root, docs):
                os.chmod(folder, 0o777)
            # The running interpreter may sit in a folder only root can enter (pyenv under /root):
            # the system's python3 of the same version runs this package and its site-packages.
            python = shutil.which("python3", path="/usr/bin:/usr/local/bin") or sys.executable
            where = os.pathsep.join([str(Path(__file__).resolve().parents[1]), sysconfig.get_paths()["purelib"]])
            env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "TIKTOKEN_CACHE_DIR": str(root), "PYTHONPATH": where}
            try:
                done = subprocess.run(
                    [python, "-c", _AS_NOBODY, str(root)], user=65534, group=65534, env=env,
                    capture_output=True, text=True, timeout=120, check=False,
                )
            except PermissionError as exc:
                pytest.skip(f"nobody cannot start {python}: {exc}")
            if done.returncode != 0:
                pytest.skip(f"cannot run the indexer as nobody here: {done.stderr.strip()[-200:]}")
            *listed, chunked = json.loads(done.stdout)
            problems = [(str(path), str(message)) for path, message in listed]
        assert chunked == 1
        assert [(Path(path).name, message.endswith("Permission denied")) for path, message in problems] == [
            ("secret.md", True)
        ]
    finally:
        shutil.rmtree(root, ignore_errors=True)
