"""Every public class and function of every adapter shows a ``>>>`` example."""

from __future__ import annotations

import inspect

import pytest

import thrift_fp.adapters.anthropic
import thrift_fp.adapters.langchain
import thrift_fp.adapters.llamaindex
import thrift_fp.adapters.openai
import thrift_fp.adapters.pydantic_ai

_PUBLIC = [
    (module.__name__, name, getattr(module, name))
    for module in (
        thrift_fp.adapters.openai, thrift_fp.adapters.anthropic, thrift_fp.adapters.pydantic_ai,
        thrift_fp.adapters.langchain, thrift_fp.adapters.llamaindex,
    )
    for name in module.__all__
    if inspect.isclass(getattr(module, name)) or inspect.isfunction(getattr(module, name))
]


@pytest.mark.parametrize(("module", "name", "value"), _PUBLIC, ids=[f"{m}.{n}" for m, n, _ in _PUBLIC])
def test_public_names_have_a_doctest(module: str, name: str, value: object) -> None:
    assert ">>>" in (inspect.getdoc(value) or ""), f"{module}.{name} has no >>> example"


def test_the_adapters_page_runs_and_every_recipe_it_shows_sending_fits() -> None:
    # docs/adapters.md: each recipe builds the request it shows sending and counts it as the
    # provider frames it, within the fit's budget (the count equals fitted.tokens).
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "adapters.md"
    done = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert done.failed == 0 and done.attempted >= 20, done
