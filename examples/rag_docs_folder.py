"""RAG over a folder of documents: index it, then answer a question in one call.

`index_paths` splits Markdown (and rST, HTML, text, JSONL) into passages under their headings
and stores them in a SQLite FTS5 index; `assemble` retrieves under a quota, fits the passages
into the budget (the best-scored first, a shed one refilled when it still fits) and renders
them in trust-tier envelopes the text cannot break out of.

    python examples/rag_docs_folder.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from returns.result import Failure, Success

from thrift_fp import assemble, index_paths

with tempfile.TemporaryDirectory() as folder:
    docs = Path(folder) / "docs"
    docs.mkdir()
    (docs / "refunds.md").write_text(
        "# Refunds\n\n## Timing\n\nRefunds take 30 days after we receive the returned item.\n\n"
        "## Exceptions\n\nDigital goods are refunded within 2 days.\n"
    )
    (docs / "shipping.md").write_text("# Shipping\n\nOrders ship within 3 working days. " * 20)
    database = Path(folder) / "index.db"

    report = index_paths(database, [docs]).unwrap()
    print(f"indexed {report.passages} passages")

    match assemble("how long do refunds take", database=database, context_window=700):
        case Success(answer):
            print(f"context: {answer.tokens} tokens of a {answer.budget}-token budget")
            for decision in answer.decisions:
                print(f"  {'kept' if decision.kept else 'shed'} {decision.record.id}: {decision.reason}")
            print(answer.text)
        case Failure(error):
            raise SystemExit(f"could not answer: {error}")
