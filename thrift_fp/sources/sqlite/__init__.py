"""The SQLite FTS5 store: the embedded default (its public names are `thrift_fp.sources`'s)."""

__all__: list[str] = []
