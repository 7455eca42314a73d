"""Thrift's batch recognises a shape, not the record class: data flows one way (thrift imports
nothing from records), a class that declares the text-priced shape is counted in the batch without
its estimator being called, and a subclass that does not declare it again is asked."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import thrift_fp.thrift
from thrift_fp.records import Retrievable
from thrift_fp.thrift import WorkingSet, subtract_to_fit
from thrift_fp.thrift._text_priced import TEXT_PRICED, priced_text, text_priced

AT = datetime(2026, 1, 1, tzinfo=UTC)


def test_thrift_imports_nothing_from_records_or_any_layer_to_its_right() -> None:
    folder = Path(thrift_fp.thrift.__file__).parent
    imported = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    layers = {name.split(".")[1] for name in imported if name.startswith("thrift_fp.")}
    assert layers <= {"thrift", "tokens", "_errors", "_value", "_shown", "_args", "_beartype", "_lazy"}, layers


def test_the_record_declares_the_shape_and_a_subclass_must_declare_it_again() -> None:
    class Repriced(Retrievable):
        __slots__ = ()

    assert getattr(Retrievable, TEXT_PRICED) is True and text_priced(Retrievable)
    assert not text_priced(Repriced)
    assert priced_text(Retrievable("a", "body", "first-party", AT, AT)) == "body"
    assert priced_text(Repriced("a", "body", "first-party", AT, AT)) is None


class _Declared:
    estimate_counts_content = True

    def __init__(self, ident: str, content: str) -> None:
        self.id, self.content, self.calls = ident, content, 0

    def estimate_tokens(self, encoding: str) -> int:
        self.calls += 1
        return 10_000  # never asked: the batch counts the text


class _Undeclared(_Declared):
    pass


def test_a_declared_shape_is_counted_in_the_batch_and_an_undeclared_one_is_asked() -> None:
    declared, undeclared = _Declared("d", "two words"), _Undeclared("u", "two words")
    fitted = subtract_to_fit(WorkingSet(retrievables=(declared, undeclared)), 100_000).unwrap()
    assert declared.calls == 0 and undeclared.calls == 1
    assert fitted.trace.total_before == 2 + 10_000
