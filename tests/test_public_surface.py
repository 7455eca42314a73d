"""The curated top level: ``thrift_fp.__all__`` is exactly the table docs/surface.md documents."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import thrift_fp

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
