"""`thrift-fp ask`'s table: each passage's rendered cost (body + envelope), and a footer in which the
kept rows and the fixed overhead add up exactly to the context's total."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.tokens import count_tokens


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("THRIFT_FP_CACHE_DIR", str(cache))
    monkeypatch.setenv("COLUMNS", "160")
    return cache


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("│")[1:-1]]


def test_rows_and_fixed_overhead_add_up_to_the_rendered_total(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ask", "how does shedding work", "--budget", "600"]) == 0
    out, err = capsys.readouterr()
    total = count_tokens(out.removesuffix("\n")).unwrap().tokens  # echo adds one newline
    lines = err.splitlines()
    header = _cells(next(line for line in lines if "passage" in line and "cost" in line).replace("┃", "│"))
    assert header[1:6] == ["passage", "score", "body", "env", "cost"]
    rows = [_cells(line) for line in lines if line.startswith("│kept") or line.startswith("│shed")]
    assert rows and all(int(row[3]) + int(row[4]) == int(row[5]) for row in rows)
    kept = sum(int(row[5]) for row in rows if row[0] == "kept")
    footer = [_cells(line) for line in lines if re.match(r"│\s+│(kept|\+ fixed|= context)", line)]
    assert [row[1] for row in footer] == ["kept", "+ fixed", "= context"]
    rows_total, fixed, context = (int(row[5]) for row in footer)
    assert rows_total == kept
    assert rows_total + fixed == context == total
    assert f"context: {total} cl100k_base tokens of a 600-token budget" in " ".join(err.split())
    # The README's question now keeps every passage of the on-topic document; the first format's
    # wrappers shed one of them (shedding.md#3 before the structure-aware passages).
    on_topic = [row for row in rows if row[1].startswith("corpus/shedding.md#")]
    assert len(on_topic) >= 2 and all(row[0] == "kept" for row in on_topic)
