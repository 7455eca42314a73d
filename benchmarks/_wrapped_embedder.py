"""What the benchmarks' embedders that wrap the real model (a cache, a memory of vectors) share."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from thrift_fp.sources.dense import Embedder


class SameModel:
    """A wrapper of ``inner`` that stands for its model: the same model id and dimensions, so an
    index built through the wrapper is the index the model itself would build."""

    inner: Embedder

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions
