"""The no-match rule weighs what the index does not know (issue 34): a hybrid search holds its
`match_score` — the best fused score less `UNKNOWN_WEIGHT` times the share of the question no
passage holds (`unknown_share`) — to the index's floor, on SQLite and PostgreSQL alike; the floor
an index run stores names the rule, and a floor stored under the previous rule is not used."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests._dense_model import CountingEmbedder, write_dense_docs
from thrift_fp.sources import index_paths, search_index, search_ranking
from thrift_fp.sources.dense import FLOOR_RULE, MATCH_FLOOR, MATCH_RULE, UNKNOWN_WEIGHT, missing_runtime
from thrift_fp.sources.postgres import PostgresDatabase, open_database
from thrift_fp.sources.postgres import index_paths as pg_index
from thrift_fp.sources.postgres import search_ranking as pg_ranking
from thrift_fp.sources.postgres._search import search_matched as pg_matched
from thrift_fp.sources.ranking._score import FADE_FROM, KNOWN_AT
from thrift_fp.sources.sqlite._dense import FLOOR_KEY, record_floor
from thrift_fp.sources.sqlite._search import search_matched

pytestmark = pytest.mark.skipif(missing_runtime() is not None, reason="the [dense] extra's runtime is not installed")
# The rule before the unknown share was weighed: a floor stored under it is measured again.
PREVIOUS_RULE = "probes q0.9 +0.01 cap 0.35, 58 probes"
KNOWN = "budget tokens"  # every word is in the corpus
HALF_KNOWN = "tokens spent zzqxv"  # one word no passage holds
NONSENSE = "zzqxv flurbogrant"  # no word any passage holds


def _write_many(root: Path) -> Path:
    # KNOWN_AT one-passage pages: an index large enough for a word's absence to count fully.
    docs = root / "many"
    docs.mkdir(parents=True)
    for page in range(KNOWN_AT):
        (docs / f"page{page}.md").write_text(
            f"## Part {page}\n\nThe budget of part {page} is spent on tokens{' and reserve' * (page % 3)}.\n",
            encoding="utf-8",
        )
    return docs


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_many(tmp_path_factory.mktemp("many"))


@pytest.fixture
def database(many: Path, tmp_path: Path) -> Path:
    index_paths(tmp_path / "i.db", [many], dense=CountingEmbedder()).unwrap()
    return tmp_path / "i.db"


def _matched(database: Path, question: str, floor: float | None = 0.0) -> tuple[float, float]:
    hits, matched = search_matched(database, question, dense=CountingEmbedder(), match_floor=floor).unwrap()
    assert hits and matched is not None
    return hits[0].score, matched


def test_the_match_score_is_the_best_fused_score_less_the_weighed_unknown_share(database: Path) -> None:
    best, matched = _matched(database, KNOWN)
    assert matched == best
    best, matched = _matched(database, NONSENSE)
    assert matched == pytest.approx(best - UNKNOWN_WEIGHT)
    best, matched = _matched(database, HALF_KNOWN)
    assert best - UNKNOWN_WEIGHT < matched < best


def test_a_word_no_passage_holds_can_pull_a_question_under_the_floor(database: Path) -> None:
    best, matched = _matched(database, HALF_KNOWN)
    between = (best + matched) / 2  # the fused score reaches it; the match score does not
    assert search_index(database, HALF_KNOWN, dense=CountingEmbedder(), match_floor=between).unwrap() == ()
    answered = search_index(database, HALF_KNOWN, dense=CountingEmbedder(), match_floor=matched).unwrap()
    assert answered == search_index(database, HALF_KNOWN, dense=CountingEmbedder(), match_floor=0.0).unwrap()
    # A floor of 0 is no floor: nonsense still shows what the dense side offers (a match score
    # below 0 is answered too: properties/test_no_match_rule.py).
    assert search_index(database, NONSENSE, dense=CountingEmbedder(), match_floor=0.0).unwrap()


def test_in_a_small_index_an_absent_word_weighs_nothing(tmp_path: Path) -> None:
    # Below FADE_FROM passages most words of any question are absent: the floor alone decides.
    index_paths(tmp_path / "small.db", [write_dense_docs(tmp_path)], dense=CountingEmbedder()).unwrap()
    with closing(sqlite3.connect(tmp_path / "small.db")) as connection:
        passages = connection.execute("SELECT count(*) FROM passages").fetchone()[0]
    best, matched = _matched(tmp_path / "small.db", NONSENSE)
    assert 0 < passages < FADE_FROM
    assert matched == best


def test_the_stored_floor_and_the_json_name_the_rule(database: Path) -> None:
    with closing(sqlite3.connect(database)) as connection:
        stored = json.loads(connection.execute("SELECT value FROM meta WHERE key = ?", (FLOOR_KEY,)).fetchone()[0])
    assert stored["rule"] == FLOOR_RULE and MATCH_RULE in FLOOR_RULE
    ranking = search_ranking(database, dense=CountingEmbedder()).unwrap()
    assert ranking.as_json()["match_rule"] == MATCH_RULE and ranking.floor_calibrated


def test_a_floor_stored_under_the_previous_rule_is_not_used_and_measured_again(database: Path, many: Path) -> None:
    connection = sqlite3.connect(database)
    connection.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
        (FLOOR_KEY, json.dumps({"model": "letters", "floor": 0.99, "rule": PREVIOUS_RULE})),
    )
    connection.commit()
    connection.close()
    ranking = search_ranking(database, dense=CountingEmbedder()).unwrap()
    assert (ranking.match_floor, ranking.floor_calibrated) == (MATCH_FLOOR, False)
    assert search_index(database, KNOWN, dense=CountingEmbedder()).unwrap()  # the default floor, not 0.99
    index_paths(database, [many], dense=CountingEmbedder()).unwrap()
    assert search_ranking(database, dense=CountingEmbedder()).unwrap().floor_calibrated
    # And the floor a run stores is honoured the same way as before.
    connection = sqlite3.connect(database)
    record_floor(connection, "letters", 0.99)
    connection.commit()
    connection.close()
    assert search_index(database, KNOWN, dense=CountingEmbedder()).unwrap() == ()


@pytest.fixture
def postgres(pg_url: str) -> Iterator[PostgresDatabase]:
    with open_database(pg_url, create=True).unwrap() as opened:
        yield opened


def test_postgres_holds_the_same_match_score_to_its_floor(postgres: PostgresDatabase, database: Path, many: Path) -> None:
    pg_index(postgres, [many], dense=CountingEmbedder()).unwrap()
    for question in (KNOWN, HALF_KNOWN, NONSENSE, "reserve of part 7"):
        on_postgres = pg_matched(postgres, question, dense=CountingEmbedder(), match_floor=0.0).unwrap()
        on_sqlite = search_matched(database, question, dense=CountingEmbedder(), match_floor=0.0).unwrap()
        assert on_postgres[1] == pytest.approx(on_sqlite[1], abs=1e-9), question
        assert [h.passage_id for h in on_postgres[0]] == [h.passage_id for h in on_sqlite[0]], question
    # The collection's floor was calibrated on the same match scores as the SQLite index's.
    pg_floor = pg_ranking(postgres, dense=CountingEmbedder()).unwrap()
    sqlite_floor = search_ranking(database, dense=CountingEmbedder()).unwrap()
    assert (pg_floor.match_floor, pg_floor.floor_calibrated) == (sqlite_floor.match_floor, True)
    assert pg_floor.as_json()["match_rule"] == MATCH_RULE
