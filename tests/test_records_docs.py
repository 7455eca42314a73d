"""Every public class and function of records and retrieval shows a runnable ``>>>`` example."""

from __future__ import annotations

import inspect

import pytest

import thrift_fp.records
import thrift_fp.retrieval

_PUBLIC = [
    (module.__name__, name, getattr(module, name))
    for module in (thrift_fp.records, thrift_fp.retrieval)
    for name in module.__all__
    if inspect.isclass(getattr(module, name)) or inspect.isfunction(getattr(module, name))
]


@pytest.mark.parametrize(("module", "name", "value"), _PUBLIC, ids=[f"{m}.{n}" for m, n, _ in _PUBLIC])
def test_public_names_have_a_doctest(module: str, name: str, value: object) -> None:
    assert ">>>" in (inspect.getdoc(value) or ""), f"{module}.{name} has no >>> example"
