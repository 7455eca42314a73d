"""Each index calibrates its own no-match floor (issue 34): an index run with vectors asks the
off-topic probes of its own passages and stores the floor; a search uses it by default, says so,
and falls back to `MATCH_FLOOR` for an index without one (older, another model, another rule)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests._dense_model import CountingEmbedder, passages_seen, probes_seen, write_dense_docs
from tests._files import write_old
from thrift_fp.sources import index_paths, search_index, search_ranking
from thrift_fp.sources.dense import FLOOR_RULE, MATCH_FLOOR, missing_runtime, probe_questions
from thrift_fp.sources.dense._probes import FLOOR_CAP
from thrift_fp.sources.sqlite._dense import FLOOR_KEY, record_floor

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra's runtime is not installed")


def _stored(database: Path) -> dict[str, object] | None:
    connection = sqlite3.connect(database)
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = ?", (FLOOR_KEY,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))
    finally:
        connection.close()


def _set_floor(database: Path, model: str, floor: float, rule: str = FLOOR_RULE) -> None:
    connection = sqlite3.connect(database)
    try:
        if rule == FLOOR_RULE:
            record_floor(connection, model, floor)
        else:
            value = json.dumps({"model": model, "floor": floor, "rule": rule})
            connection.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (FLOOR_KEY, value))
        connection.commit()
    finally:
        connection.close()


def test_an_index_run_with_vectors_stores_a_floor_measured_by_the_probes(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    index_paths(tmp_path / "i.db", [write_dense_docs(tmp_path)], dense=embedder).unwrap()
    stored = _stored(tmp_path / "i.db")
    assert stored is not None and stored["model"] == "letters" and stored["rule"] == FLOOR_RULE
    assert MATCH_FLOOR <= float(str(stored["floor"])) <= FLOOR_CAP
    assert probes_seen(embedder) == list(probe_questions())
    ranking = search_ranking(tmp_path / "i.db", dense=embedder).unwrap()
    assert (ranking.match_floor, ranking.floor_calibrated) == (stored["floor"], True)
    assert ranking.as_json()["match_floor_from"] == "this index's probes"
    # A lexical run stores none, and asks nothing.
    index_paths(tmp_path / "lexical.db", [write_dense_docs(tmp_path / "other")], dense=False).unwrap()
    assert _stored(tmp_path / "lexical.db") is None


def test_a_search_answers_nothing_below_the_stored_floor_unless_told_otherwise(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    index_paths(tmp_path / "i.db", [write_dense_docs(tmp_path)], dense=embedder).unwrap()
    question = "the budget is the window less the reserve"
    found = search_index(tmp_path / "i.db", question, dense=embedder, match_floor=0.0).unwrap()
    assert found
    best = found[0].score
    _set_floor(tmp_path / "i.db", "letters", min(1.0, best + 0.001))
    assert search_index(tmp_path / "i.db", question, dense=embedder).unwrap() == ()
    assert search_index(tmp_path / "i.db", question, dense=embedder, match_floor=best).unwrap() == found
    _set_floor(tmp_path / "i.db", "letters", best)
    assert search_index(tmp_path / "i.db", question, dense=embedder).unwrap() == found


@pytest.mark.parametrize(("model", "rule"), [("another-model", FLOOR_RULE), ("letters", "an older rule")])
def test_a_floor_of_another_model_or_rule_is_not_used_and_the_next_run_measures_again(
    tmp_path: Path, model: str, rule: str
) -> None:
    docs, embedder = write_dense_docs(tmp_path), CountingEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    measured = _stored(tmp_path / "i.db")
    _set_floor(tmp_path / "i.db", model, 0.99, rule)
    ranking = search_ranking(tmp_path / "i.db", dense=embedder).unwrap()
    assert (ranking.match_floor, ranking.floor_calibrated) == (MATCH_FLOOR, False)
    assert ranking.as_json()["match_floor_from"] == "the default"
    embedder.seen.clear()
    assert index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap().embedded == 0
    assert passages_seen(embedder) == [] and probes_seen(embedder) == list(probe_questions())
    assert _stored(tmp_path / "i.db") == measured


@pytest.mark.parametrize("value", ["not json", '{"model": "letters"}', '{"model": "letters", "floor": "nan"}', "[1]"])
def test_a_damaged_floor_is_no_floor(tmp_path: Path, value: str) -> None:
    embedder = CountingEmbedder()
    index_paths(tmp_path / "i.db", [write_dense_docs(tmp_path)], dense=embedder).unwrap()
    connection = sqlite3.connect(tmp_path / "i.db")
    connection.execute("UPDATE meta SET value = ? WHERE key = ?", (value, FLOOR_KEY))
    connection.commit()
    connection.close()
    assert search_ranking(tmp_path / "i.db", dense=embedder).unwrap().match_floor == MATCH_FLOOR
    assert search_index(tmp_path / "i.db", "budget", dense=embedder).unwrap()


def test_a_lexical_run_that_changes_passages_drops_the_floor_with_the_vectors(tmp_path: Path) -> None:
    docs, embedder = write_dense_docs(tmp_path), CountingEmbedder()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    write_old(docs / "tokens.md", "# Tokens\n\nCount tokens exactly.\n")
    index_paths(tmp_path / "i.db", [docs], dense=False).unwrap()
    assert _stored(tmp_path / "i.db") is None
    embedder.seen.clear()
    index_paths(tmp_path / "i.db", [docs], dense=embedder).unwrap()
    assert _stored(tmp_path / "i.db") is not None and probes_seen(embedder) == list(probe_questions())
