"""`thrift-fp index` on a long run whose standard error is not a terminal (a log, a pipe).

Regression: the transient progress bar still wrote a bare newline to standard error, so
a failed long run printed two lines (an empty one, then the error) and a good one printed
one empty line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thrift_fp.cli import run


def _many(tmp_path: Path) -> Path:
    many = tmp_path / "many"
    many.mkdir()
    for n in range(25):
        (many / f"note{n:02}.txt").write_text(f"note {n} about the budget")
    return many


def test_a_long_run_writes_nothing_to_a_non_terminal_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["index", str(_many(tmp_path)), "--db", str(tmp_path / "many.db")]) == 0
    out, err = capsys.readouterr()
    assert "25 chunked" in out and err == ""


def test_a_long_failed_run_is_exactly_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many = _many(tmp_path)
    (many / "zz-broken.jsonl").write_text("{not json}\n")
    assert run(["index", str(many), "--db", str(tmp_path / "many.db"), "--strict"]) == 1
    err = capsys.readouterr().err
    # One line for the skipped file, one for the error: no progress bar left behind (--strict).
    assert err.startswith("thrift-fp: skipped: ") and err.count("\n") == 2, repr(err)
    assert err.splitlines()[1].startswith("thrift-fp: error: ")


def test_a_long_run_on_a_terminal_draws_the_bar_and_still_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # rich treats standard error as a terminal under FORCE_COLOR: the bar's own code path runs
    # (rich is imported inside the command, so a name it needs that is not bound fails here).
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert run(["index", str(_many(tmp_path)), "--db", str(tmp_path / "many.db")]) == 0
    out, err = capsys.readouterr()
    assert "25 chunked" in out
    assert "indexing" in err and "25/25" in err and "internal error" not in err, repr(err)
