"""Counted nouns for the command's messages ("1 file", "2 files")."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless it is one.

    >>> plural(1, "file"), plural(0, "file"), plural(3, "passage")
    ('1 file', '0 files', '3 passages')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
