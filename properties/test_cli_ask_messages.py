"""What ``thrift-fp ask`` says names no Python exception, whatever it is asked: questions with no
word, with punctuation only, several queries, hostile budgets and quotas. (``assemble`` keeps the
exception a check raised, as ``cause``; an operator or agent reading ``ask`` needs its words only.)
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import io
import tempfile
from pathlib import Path
from typing import Final

from hypothesis import given, settings
from hypothesis import strategies as st

from properties.hostile_strategies import examples
from tests._serve_harness import build_index
from thrift_fp.cli import run
from thrift_fp.cli._exits import DOES_NOT_FIT

EXCEPTION_NAMES: Final = tuple(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)


@functools.cache
def _index() -> Path:
    return build_index(Path(tempfile.mkdtemp(prefix="ask-messages-")))


# Words, punctuation and spaces: no question spells an exception's name itself.
questions = st.lists(
    st.sampled_from(["?", "!", ".", ",", ";", "'", '"', "-", "_", "()", "[]", "{}", "<>", "/", "\\", " ", "\t", "\n", "#", "*",
                     "budgets", "shedding", "zzqxv", "é"]),
    max_size=8,
).map("".join)


@settings(max_examples=examples(40), deadline=None)
@given(
    asked=st.lists(questions, min_size=1, max_size=3),
    budget=st.integers(-3, 3000),
    max_queries=st.integers(0, 3),
    as_json=st.booleans(),
)
def test_no_ask_message_names_a_python_exception(asked: list[str], budget: int, max_queries: int, as_json: bool) -> None:
    argv = ["ask", asked[0], *(part for query in asked[1:] for part in ("-q", query)), "--db", str(_index()),
            "--budget", str(budget), "--max-queries", str(max_queries), "--lexical", *(["--json"] if as_json else [])]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = run(argv)
    # 3: the budget cannot carry the directive and one passage (`DOES_NOT_FIT`), said in words too.
    assert status in (0, 1, 2, DOES_NOT_FIT), (status, err.getvalue()[-300:])
    said = err.getvalue() + ("" if status == 0 else out.getvalue())
    named = [name for name in EXCEPTION_NAMES if name in said]
    assert not named, (named, said[-300:])
