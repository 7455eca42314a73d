"""`assemble` and `ask` refill by default; the library's `ThriftOptions()` does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thrift_fp.cli import run
from thrift_fp.sources import Assembled, assemble, index_paths
from thrift_fp.thrift import ThriftOptions
from thrift_fp.tokens import count_tokens

_REFILLED = "re-admitted by refill: fits what shedding left"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("refill")
    # Passages of different lengths, so a smaller lower-ranked one can fit where a larger one did not.
    for at, words in enumerate((12, 90, 40, 8, 60, 5)):
        # Words of its own per passage: passages that share their text would be answered once.
        body = " ".join(["shedding"] * (at + 1) + [f"budget{at} passages{at} tokens{at}"] * words)
        (root / f"d{at}.md").write_text(f"# Part {at}\n\n{body}.")
    index_paths(root / "i.db", [root]).unwrap()
    return root / "i.db"


def _kept(done: Assembled) -> set[str]:
    return {d.record.id for d in done.decisions if d.kept}


def _windows(database: Path) -> list[tuple[int, Assembled, Assembled]]:
    plain = ThriftOptions(output_reserve=0)
    everything = assemble("shedding", database=database, context_window=10_000, options=plain).unwrap().tokens
    runs = []
    for window in range(0, everything + 10, 7):
        off = assemble("shedding", database=database, context_window=window, options=plain).unwrap()
        on = assemble(
            "shedding", database=database, context_window=window, options=ThriftOptions(output_reserve=0, refill=True)
        ).unwrap()
        runs.append((window, off, on))
    return runs


@pytest.fixture(scope="module")
def windows(database: Path) -> list[tuple[int, Assembled, Assembled]]:
    # Computed once for the module: both tests only read these (frozen) values.
    return _windows(database)


def test_assemble_refills_by_default_and_stays_within_budget(
    database: Path, windows: list[tuple[int, Assembled, Assembled]]
) -> None:
    default = assemble("shedding", database=database, context_window=300).unwrap()
    assert default.trace.refilled != ()  # the default options refill
    assert assemble("shedding", database=database, context_window=300, options=ThriftOptions()).unwrap().trace.refilled == ()
    gained = 0
    for window, off, on in windows:
        assert _kept(off) <= _kept(on)
        assert on.tokens == count_tokens(on.text).unwrap().tokens <= window
        came_back = _kept(on) - _kept(off)
        assert {d.record.id for d in on.decisions if d.reason == _REFILLED} == came_back
        gained += bool(came_back)
    assert gained  # some window leaves room that a smaller, lower-ranked passage fills


def test_ask_refills(
    database: Path, windows: list[tuple[int, Assembled, Assembled]], capsys: pytest.CaptureFixture[str]
) -> None:
    window = next(window for window, off, on in windows if _kept(on) > _kept(off))
    assert run(["ask", "shedding", "--db", str(database), "--budget", str(window), "--json"]) == 0
    decisions = json.loads(capsys.readouterr().out)["decisions"]
    assert any(d["kept"] and d["reason"] == _REFILLED for d in decisions)
