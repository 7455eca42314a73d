"""Reproducible benchmarks of thrift_fp (see BENCHMARKS.md); one module per workload.

Run them all with ``python -m benchmarks`` from the repository root.
"""
