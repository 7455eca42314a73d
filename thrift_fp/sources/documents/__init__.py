"""Reading documents into passages: walking and selecting files, decoding, parsing Markdown,
reStructuredText, HTML, text and JSONL into heading structure, and splitting sections into
passages. No store is imported here: the SQLite and PostgreSQL sources both build on it.

The public names are re-exported by `thrift_fp.sources`.
"""

__all__: list[str] = []
