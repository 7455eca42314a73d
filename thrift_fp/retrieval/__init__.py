"""retrieval layer."""

__all__: list[str] = []
