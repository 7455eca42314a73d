"""The curated top level: ``thrift_fp.__all__`` is exactly the table docs/surface.md documents."""

from __future__ import annotations

import importlib
import inspect
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

import thrift_fp
from thrift_fp.render import NotRenderable
from thrift_fp.thrift import RetrievableLike, WorkingRetrievable

DOCS = Path(__file__).resolve().parent.parent / "docs" / "surface.md"
_ROW = re.compile(r"^\| `(?P<name>\w+)` \| `(?P<home>[\w.]+)` \| (?P<purpose>[^|]+) \|$")


def _documented() -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Top-level names", 1)[1].split("\n## ", 1)[0]
    return [(match["name"], match["home"]) for line in section.splitlines() if (match := _ROW.match(line))]


def test_all_is_the_documented_table() -> None:
    documented = _documented()
    assert [name for name, _ in documented] == thrift_fp.__all__
    assert 25 <= len(thrift_fp.__all__) <= 35


@pytest.mark.parametrize(("name", "home"), _documented())
def test_each_top_level_name_is_its_subpackages_own(name: str, home: str) -> None:
    assert getattr(thrift_fp, name) is getattr(importlib.import_module(home), name)


def test_one_passage_type_meets_the_user() -> None:
    hidden = {"WorkingRetrievable", "Hit", "Passage", "DocumentPassage", "PricedRetrievable", "RawRetrievable"}
    assert "Retrievable" in thrift_fp.__all__ and not hidden & set(thrift_fp.__all__)
    assert "## Which type when" in DOCS.read_text(encoding="utf-8")
    table = DOCS.read_text(encoding="utf-8").split("## Which type when", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{name}`" in table for name in hidden | {"Retrievable"})


def test_what_a_result_needs_is_re_exported() -> None:
    from returns.result import Failure, Result, Success

    assert (thrift_fp.Result, thrift_fp.Success, thrift_fp.Failure) == (Result, Success, Failure)


def test_everything_else_stays_importable_from_its_subpackage() -> None:
    for package in ("tokens", "records", "retrieval", "thrift", "render", "sources"):
        module = getattr(thrift_fp, package)
        assert module is importlib.import_module(f"thrift_fp.{package}")
        for name in module.__all__:
            assert hasattr(module, name), f"thrift_fp.{package}.{name}"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'canonical_key'"):
        _ = thrift_fp.canonical_key  # now public only from thrift_fp.retrieval
    assert set(thrift_fp.__all__) <= set(dir(thrift_fp))


# --- One passage type: what fit_and_render accepts (docs/surface.md "Which type when") ---

_OTHER_PASSAGE_TYPES = ("WorkingRetrievable", "Hit", "DocumentPassage", "PricedRetrievable", "RawRetrievable")


def test_no_top_level_name_teaches_another_passage_type() -> None:
    # help() on a top-level name (its doctest included) shows only Retrievable as the passage type.
    for name in thrift_fp.__all__:
        doc = inspect.getdoc(getattr(thrift_fp, name)) or ""
        assert not [other for other in _OTHER_PASSAGE_TYPES if other in doc], name


def _when() -> datetime:
    return datetime(2026, 3, 1, tzinfo=UTC)


def _retrievable(record_id: str, words: int, score: float) -> thrift_fp.Retrievable:
    return thrift_fp.Retrievable(record_id, "refund policy " * words, "first-party", _when(), _when(), score=score)


class _DuckPassage:
    """What WorkingSet's type (the thrift layer's RetrievableLike protocol) also admits."""

    content = "a passage from the caller's own retriever"


@pytest.mark.parametrize(
    ("passage", "type_name"),
    [(WorkingRetrievable("no tier, no dates", id="w"), "WorkingRetrievable"), (_DuckPassage(), "_DuckPassage")],
)
def test_fit_and_render_refuses_an_untiered_passage_naming_what_to_pass(passage: RetrievableLike, type_name: str) -> None:
    working_set = thrift_fp.WorkingSet(retrievables=(_retrievable("a", 3, 0.5), passage))
    refused = thrift_fp.fit_and_render(working_set, 2000)
    assert isinstance(refused, thrift_fp.Failure)
    error = refused.failure()
    assert error == NotRenderable(1, type_name) and isinstance(error, thrift_fp.ThriftFpError)
    assert error.message.startswith(f"retrievables[1] is a {type_name}, not a Retrievable;")
    assert "build a thrift_fp.Retrievable" in error.message and "thrift_fp.parse_retrievable" in error.message
    assert "thrift_fp.subtract_to_fit" in error.message and str(error) == error.message
    # Doing what the message says works: the same text as a Retrievable renders, and the
    # passage itself fits with subtract_to_fit.
    record = thrift_fp.parse_retrievable({
        "id": "w", "content": str(getattr(passage, "content")), "trust_tier": "third-party-public",
        "created_at": "2026-03-01T00:00:00Z", "updated_at": "2026-03-01T00:00:00Z",
    }).unwrap()
    rendered = thrift_fp.fit_and_render(thrift_fp.WorkingSet(retrievables=(_retrievable("a", 3, 0.5), record)), 2000)
    assert [r.id for r in rendered.unwrap().records] == ["a", "w"]
    assert isinstance(thrift_fp.subtract_to_fit(working_set, 2000), thrift_fp.Success)


def test_a_type_name_in_the_refusal_is_bounded() -> None:
    hostile = type("P" * 10_000, (), {"content": "x"})()
    error = thrift_fp.fit_and_render(thrift_fp.WorkingSet(retrievables=(hostile,)), 100).failure()
    assert isinstance(error, NotRenderable) and len(error.message) < 500 and "(10000 chars)" in error.message


def test_every_passage_a_top_level_function_hands_back_renders(tmp_path: Path) -> None:
    records = (_retrievable("a", 5, 0.9), _retrievable("b", 4, 0.4))
    keyed = thrift_fp.KeyedNonce(b"k" * 32)
    fitted = thrift_fp.subtract_to_fit(thrift_fp.WorkingSet(retrievables=records), 2000).unwrap()
    rendered = thrift_fp.fit_and_render(fitted.working_set, 2000, nonce=keyed).unwrap()
    again = thrift_fp.fit_and_render(rendered.working_set, 2000, nonce=keyed).unwrap()
    assert again.text == rendered.text and [r.id for r in again.records] == ["a", "b"]
    note = tmp_path / "note.md"
    note.write_text("# Refunds\n\nRefunds take five days to reach the card.\n")
    thrift_fp.index_paths(tmp_path / "index.db", [note]).unwrap()
    assembled = thrift_fp.assemble("refunds", database=tmp_path / "index.db", context_window=2000).unwrap()
    kept = assembled.working_set.retrievables
    assert kept and all(isinstance(item, thrift_fp.Retrievable) for item in kept)
    assert thrift_fp.fit_and_render(assembled.working_set, 2000).unwrap().records == kept
