"""The connection the PostgreSQL store's modules read and write through: psycopg's, rows as tuples."""

from __future__ import annotations

import psycopg

Connection = psycopg.Connection[tuple[object, ...]]
"""A psycopg connection whose rows are plain tuples (the default row factory)."""
