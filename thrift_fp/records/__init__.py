"""records layer."""

__all__: list[str] = []
