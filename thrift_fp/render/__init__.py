"""render layer."""

__all__: list[str] = []
