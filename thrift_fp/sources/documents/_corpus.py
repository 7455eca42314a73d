"""The small corpus shipped inside the package, for a first run with no documents of one's own."""

from __future__ import annotations

from pathlib import Path


def embedded_corpus() -> Path:
    """The folder of Markdown notes shipped with ``thrift_fp`` (context budgets, shedding, trust tiers).

    >>> sorted(p.name for p in embedded_corpus().glob("*.md"))[:3]
    ['README.md', 'chunking.md', 'context-budget.md']
    """
    return Path(__file__).resolve().parents[2] / "corpus"
