"""The picture of an adapter's fit: every adapter result's ``_repr_html_`` is this page, so a
notebook shows what the model will see, what was shed and why, beside the caller's objects.

>>> from thrift_fp.thrift import WorkingSet, subtract_to_fit
>>> fit_picture(subtract_to_fit(WorkingSet(system_prompt="Be brief."), 100).unwrap().trace)[:15]
'<!DOCTYPE html>'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from thrift_fp.thrift import ThriftTrace
from thrift_fp.thrift._picture import fit_report_html, report_passages


def fit_picture(trace: ThriftTrace, kept: Iterable[object] = ()) -> str:
    """The self-contained HTML page of ``trace`` (see `thrift_fp.thrift.fit_report_html`), listing
    the ``kept`` documents, records or nodes as they are (id, tier, source and score when they
    have them; an anonymous one is named by position).

    >>> from types import SimpleNamespace
    >>> from thrift_fp.thrift import WorkingSet, subtract_to_fit
    >>> trace = subtract_to_fit(WorkingSet(system_prompt="Be brief."), 100).unwrap().trace
    >>> "kb-1" in fit_picture(trace, [SimpleNamespace(id="kb-1", score=0.9)])
    True
    """
    return fit_report_html(trace, report_passages(kept))


class Pictured:
    """What every adapter result shares: ``_repr_html_``, the picture of its ``trace`` (a notebook
    shows it inline) listing the kept objects named by ``pictured`` (an attribute of the result;
    ``None``: none).

    >>> from dataclasses import dataclass
    >>> from thrift_fp.thrift import WorkingSet, subtract_to_fit
    >>> @dataclass(frozen=True)
    ... class Fit(Pictured):
    ...     trace: ThriftTrace
    >>> Fit(subtract_to_fit(WorkingSet(system_prompt="Be brief."), 100).unwrap().trace)._repr_html_()[:15]
    '<!DOCTYPE html>'
    """

    __slots__ = ()
    pictured: ClassVar[str | None] = None
    trace: ThriftTrace

    def _repr_html_(self) -> str:
        """This fit as one self-contained HTML page: the window bar, what was shed and why, the
        kept documents and the trace."""
        kept: Iterable[object] = () if self.pictured is None else getattr(self, self.pictured)
        return fit_picture(self.trace, kept)
