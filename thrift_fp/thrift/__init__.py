"""thrift layer."""

__all__: list[str] = []
