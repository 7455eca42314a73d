"""A passage's neighbours in its document: the passages just before and after it.

Read from the index's passages table by the passage's file and ordinal (the same table both
stores keep), only of the passage's own trust tier. A neighbour is the retrieved hit with
another passage's text, id and content: its file, kind, tier and dates are the same file's.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Final

from thrift_fp.sources import Hit

# Passages on each side of the one read: a screenful of a document, whatever the budget.
SPAN: Final = 2

_SQLITE: Final = """
SELECT n.passage_id, n.ordinal, n.content_hash, n.tokens, n.text, n.metadata, p.ordinal
FROM passages AS p JOIN passages AS n ON n.path = p.path AND n.trust_tier = p.trust_tier
WHERE p.path = ? AND p.passage_id = ? AND n.ordinal BETWEEN p.ordinal - ? AND p.ordinal + ? AND n.id != p.id
ORDER BY n.ordinal
"""


def neighbour(hit: Hit, row: Sequence[object]) -> tuple[int, Hit]:
    """A row (passage id, ordinal, content hash, tokens, text, metadata, the read passage's
    ordinal) as its distance from ``hit`` and the hit it would be."""
    passage_id, neighbour_ordinal, digest, tokens, text, metadata, ordinal = row
    loaded = json.loads(str(metadata)) if isinstance(metadata, str) else metadata
    return int(str(neighbour_ordinal)) - int(str(ordinal)), dataclasses.replace(
        hit, passage_id=str(passage_id), content_hash=str(digest), tokens=int(str(tokens)), text=str(text),
        metadata=MappingProxyType(loaded if isinstance(loaded, dict) else {}), rank=0.0, score=0.0,
    )


def sqlite_surroundings(database: Path, hit: Hit) -> tuple[tuple[int, Hit], ...]:
    """The passages within `SPAN` of ``hit`` in its file, with their distance (negative before
    it); none when the index cannot say (a vanished file, a damaged index).

    >>> import tempfile, pathlib
    >>> from thrift_fp.sources import index_paths, search_index
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.md").write_text("# A\\n\\nAlpha text.\\n\\n# B\\n\\nBravo text.\\n\\n# C\\n\\nCharlie text.")
    >>> _ = index_paths(root / "i.db", [root / "a.md"], max_tokens=8).unwrap()
    >>> [hit] = search_index(root / "i.db", "bravo").unwrap()
    >>> [(distance, around.text) for distance, around in sqlite_surroundings(root / "i.db", hit)]
    [(-1, '# A\\n\\nAlpha text.'), (1, '# C\\n\\nCharlie text.')]
    """
    try:
        connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return ()
    try:
        rows = connection.execute(_SQLITE, (hit.path, hit.passage_id, SPAN, SPAN)).fetchall()
    except sqlite3.Error:
        return ()
    finally:
        connection.close()
    return tuple(neighbour(hit, row) for row in rows)
