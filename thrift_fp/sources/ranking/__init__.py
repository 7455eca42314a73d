"""Ranking shared by every store: turning a question into terms, and the one scoring formula.

The public names are re-exported by `thrift_fp.sources`.
"""

__all__: list[str] = []
