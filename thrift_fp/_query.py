"""A query's normal form: spellings the ranking cannot tell apart share one key.

Its own small module so that ``thrift-fp ask`` can normalise a question (to embed it ahead,
`thrift_fp.sources.dense._ahead`) before the retrieval layers load; the stores' retrieval
definitions normalise with it too (`thrift_fp.sources.contract.prepare_query`).
"""

from __future__ import annotations


def normal_query(query: str) -> str:
    """``query`` lower-cased, its runs of white space one space, without leading or trailing space.

    >>> normal_query("  How does\\tSHEDDING work ")
    'how does shedding work'
    """
    return " ".join(query.lower().split())
