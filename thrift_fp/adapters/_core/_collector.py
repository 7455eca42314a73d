"""The cyclic garbage collector held off for the length of one fit.

A fit of a long history makes a few thousand small objects that live until it returns (a
priced message and an entry per message, tool links): each 700 of them wake the collector,
which walks every young container (the fit's columns of thousands of references) to find no
cycle, about a millisecond per 2,000-message fit (BENCHMARKS.md §15). `paused_collector` turns
automatic collection off while the fit runs and back on when it ends, however it ends (a
return, an error value, an exception, ``KeyboardInterrupt``). Reference counting still frees
everything the fit drops; only cycles wait for the next collection.

The switch is process-wide: it is turned back on only if it was on when the fit began, so
fits on several threads leave it on when the last of them ends, and a collector the caller
turned off stays off. (A thread that turns it off while another thread's fit runs sees it
turned back on when that fit ends.)
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_collector() -> Iterator[None]:
    """Automatic garbage collection off inside the block, restored on leaving it however it ends.

    >>> import gc
    >>> with paused_collector():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
