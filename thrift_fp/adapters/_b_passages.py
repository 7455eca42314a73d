"""Retrieved passages (LangChain ``Document``, LlamaIndex ``NodeWithScore``): keys and scores.

Documented, deterministic defaults:

- **Ids.** A passage keeps its own id; one without an id gets a content-hash id,
  ``sha256:<first 16 hex digits of the SHA-256 of its UTF-8 text>``. A key seen before in the same
  call (two copies of one chunk) gets ``#2``, ``#3``, ... appended, so every passage stays apart in
  the trace.
- **Scores.** A missing score is ``None`` (the fit ranks it as 0, so it sheds first). A bool, a
  non-number, NaN or an infinity is an error value naming the passage index and the field. When
  every present score lies in [0, 1] the scores are used as they are; otherwise (cross-encoder
  logits, BM25) they are min-max rescaled over the call's present scores, ``(s - min) / (max -
  min)``, which keeps their order and ties; if they are all equal, each becomes 1.0.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from returns.result import Failure, Result, Success

from thrift_fp.adapters._b_errors import AdapterError, ItemKind, MalformedItem


def content_id(text: str) -> str:
    """The id of a passage that has none: a prefix of its text's SHA-256.

    >>> content_id("The sky is blue.")
    'sha256:52ae4fd504d855f1'
    """
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def passage_keys(ids: Sequence[str | None], texts: Sequence[str]) -> tuple[str, ...]:
    """One unique key per passage: its id, else its content id; repeats get ``#n``.

    >>> passage_keys(["a", None, "a", None], ["x", "y", "z", "y"])
    ('a', 'sha256:a1fce4363854ff88', 'a#2', 'sha256:a1fce4363854ff88#2')
    """
    seen: dict[str, int] = {}
    keys: list[str] = []
    for ident, text in zip(ids, texts, strict=True):
        base = ident if ident is not None else content_id(text)
        count = seen.get(base, 0) + 1
        seen[base] = count
        keys.append(base if count == 1 else f"{base}#{count}")
    return tuple(keys)


def normalised_scores(raw: Sequence[object], kind: ItemKind, field: str) -> Result[tuple[float | None, ...], AdapterError]:
    """Scores in [0, 1] (see the module docstring for the rule).

    >>> normalised_scores([0.2, None, 0.9], "document", "relevance_score").unwrap()
    (0.2, None, 0.9)
    >>> normalised_scores([-2.0, 3.0, 0.5], "document", "relevance_score").unwrap()
    (0.0, 1.0, 0.5)
    >>> normalised_scores([0.5, float("nan")], "node", "score").failure().message
    'node 1: invalid score (expected a finite number, got nan)'
    """
    present: list[float] = []
    scores: list[float | None] = []
    for index, value in enumerate(raw):
        if value is None:
            scores.append(None)
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
            return Failure(MalformedItem(kind, index, field, f"expected a finite number, got {value!r}"))
        number = float(value)
        present.append(number)
        scores.append(number)
    if not present or (min(present) >= 0.0 and max(present) <= 1.0):
        return Success(tuple(scores))
    # Halved first, so that the span of two huge opposite scores cannot overflow to inf.
    low, high = min(present) / 2, max(present) / 2
    span = high - low
    return Success(tuple(None if score is None else (1.0 if span == 0 else (score / 2 - low) / span) for score in scores))


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond float range
        return False
