"""Picture a fit: write the self-contained HTML page of what was kept, what was shed and why.

Every fit result (`Fitted`, `FitRendered`, `Assembled`) shows this page in a notebook
(`_repr_html_`); `thrift_fp.thrift.fit_report_html` builds it from any trace, and
`thrift-fp ask --report FILE` writes it from the command line. The page needs no network.

    python examples/fit_report.py [OUTPUT.html]
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from thrift_fp import Message, Retrievable, WorkingSet, subtract_to_fit
from thrift_fp.thrift import fit_report_bar, fit_report_html, report_passages

now = datetime(2026, 12, 1, tzinfo=UTC)
passages = tuple(
    Retrievable(f"kb-{i}", "Refunds take thirty days after the return arrives. " * (8 * (i + 1)),
                "first-party", now, now, source=f"kb/refunds-{i}.md", score=round(0.9 - i / 5, 2))
    for i in range(4)
)
history = tuple(Message(f"m{i}", "An earlier question about an order. " * 15, now, role="user") for i in range(3))
ws = WorkingSet(system_prompt="Answer from the knowledge base.", messages=history, retrievables=passages)
fitted = subtract_to_fit(ws, 1200).unwrap()

for segment in fit_report_bar(fitted.trace):
    where = "beyond the window" if segment.beyond else "in the window"
    print(f"{segment.kind:8} {segment.label:13} {segment.tokens:6} {where}")

page = fit_report_html(fitted.trace, report_passages(fitted.working_set.retrievables), title="Refunds question")
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "fit-report.html"
out.write_text(page, encoding="utf-8")
print(f"wrote {out} ({len(page)} characters)")
