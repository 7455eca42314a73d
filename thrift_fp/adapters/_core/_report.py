"""The picture of an adapter's fit: every adapter result's ``_repr_html_`` is this page, so a
notebook shows what the model will see, what was shed and why, beside the caller's objects.

>>> from thrift_fp.thrift import WorkingSet, subtract_to_fit
>>> fit_picture(subtract_to_fit(WorkingSet(system_prompt="Be brief."), 100).unwrap().trace)[:15]
'<!DOCTYPE html>'
"""

from __future__ import annotations

from collections.abc import Iterable

from thrift_fp.render import fit_report_html, report_passages
from thrift_fp.thrift import ThriftTrace


def fit_picture(trace: ThriftTrace, kept: Iterable[object] = ()) -> str:
    """The self-contained HTML page of ``trace`` (see `thrift_fp.render.fit_report_html`), listing
    the ``kept`` documents, records or nodes as they are (id, tier, source and score when they
    have them; an anonymous one is named by position).

    >>> from types import SimpleNamespace
    >>> from thrift_fp.thrift import WorkingSet, subtract_to_fit
    >>> trace = subtract_to_fit(WorkingSet(system_prompt="Be brief."), 100).unwrap().trace
    >>> "kb-1" in fit_picture(trace, [SimpleNamespace(id="kb-1", score=0.9)])
    True
    """
    return fit_report_html(trace, report_passages(kept))
