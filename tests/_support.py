"""Small helpers several test modules share (one concept each; fixtures live in conftest.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime


def run_together(work: Callable[[int], object], count: int) -> None:
    """Run ``work(0)`` … ``work(count - 1)`` each in its own thread, all started before any is
    joined, so the calls overlap; returns when every thread has ended."""
    threads = [threading.Thread(target=work, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@dataclass(frozen=True)
class BareItem:
    """A caller's message or thought with only the three attributes every one must have (no role,
    summary, ephemeral, pair id or this_turn), its content whatever untyped data held."""

    id: str
    content: object
    created_at: datetime
