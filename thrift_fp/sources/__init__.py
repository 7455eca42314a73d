"""sources layer."""

__all__: list[str] = []
