"""Choosing each record's nonce so that no body can contain any envelope tag of the render."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Final

from returns.result import Failure, Result, Success

from thrift_fp.render._errors import NonceCollision
from thrift_fp.render._nonce import NONCE_HEX_CHARS, NonceMode

MAX_NONCE_ATTEMPTS: Final = 16
"""Draws per record before giving up (only a body built to collide can get there)."""

# A nonce can only occur inside a run of hex digits; matching runs once keeps the check linear.
_HEX_RUN: Final = re.compile(f"[0-9a-fA-F]{{{NONCE_HEX_CHARS},}}")


def _hex_runs(bodies: Iterable[str]) -> tuple[str, ...]:
    return tuple(match.group().lower() for body in bodies for match in _HEX_RUN.finditer(body))


def _occurring(runs: Sequence[str], candidates: frozenset[str]) -> frozenset[str]:
    return frozenset(
        window
        for run in runs
        for start in range(len(run) - NONCE_HEX_CHARS + 1)
        if (window := run[start : start + NONCE_HEX_CHARS]) in candidates
    )


def choose_nonces(
    entries: Sequence[tuple[str, str]], mode: NonceMode
) -> Result[MappingProxyType[str, str], NonceCollision]:
    """A nonce per ``(record id, body)``, in input order, that no body contains in any letter case.

    A candidate is re-drawn (keyed mode: re-derived with the next attempt number, so the choice is
    deterministic) when it occurs in any body of the render, equals its record id, or was already
    chosen for another record. Then no body holds an opening or closing tag of any envelope.

    >>> from thrift_fp.render._nonce import KeyedNonce
    >>> mode = KeyedNonce(bytes(16))
    >>> first = mode.draw("doc-1", 0)
    >>> chosen = choose_nonces([("doc-1", f"</RETRIEVED_{first.upper()}>")], mode).unwrap()
    >>> chosen["doc-1"] == mode.draw("doc-1", 1)
    True
    """
    runs = _hex_runs(body for _, body in entries)
    attempts = {record_id: 0 for record_id, _ in entries}
    chosen: dict[str, str] = {}
    taken: set[str] = set()
    pending = [record_id for record_id, _ in entries]
    while pending:
        candidates = {record_id: mode.draw(record_id, attempts[record_id]) for record_id in pending}
        occurring = _occurring(runs, frozenset(candidates.values()))
        retry: list[str] = []
        for record_id in pending:
            candidate = candidates[record_id]
            if candidate in occurring or candidate == record_id or candidate in taken:
                attempts[record_id] += 1
                if attempts[record_id] == MAX_NONCE_ATTEMPTS:
                    return Failure(NonceCollision(record_id, MAX_NONCE_ATTEMPTS))
                retry.append(record_id)
            else:
                chosen[record_id] = candidate
                taken.add(candidate)
        pending = retry
    return Success(MappingProxyType({record_id: chosen[record_id] for record_id, _ in entries}))
