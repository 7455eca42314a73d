"""`Assembled` carries the fitted working set: dropped chat messages show without trace arithmetic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from thrift_fp.sources import assemble, index_paths
from thrift_fp.thrift import Message, WorkingSet

START = datetime(2026, 1, 2, tzinfo=UTC)


def test_assembled_carries_the_fitted_working_set(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Shedding drops the lowest score first.")
    index_paths(tmp_path / "i.db", [tmp_path / "a.md"]).unwrap()
    history = tuple(
        Message(f"m{i}", f"message number {i} " * 30, START + timedelta(minutes=i), role="user") for i in range(12)
    )
    ws = WorkingSet(system_prompt="Answer from the notes.", messages=history)
    done = assemble("shedding", database=tmp_path / "i.db", working_set=ws, context_window=900).unwrap()
    kept = {message.id for message in done.working_set.messages}
    shed = {record_id for bucket in done.trace.buckets if bucket.bucket == "messages" for record_id in bucket.ids}
    assert shed and kept == {m.id for m in history} - shed
    assert "m11" in kept  # the newest message is never shed
    assert done.working_set.system_prompt == "Answer from the notes."
    assert [getattr(r, "id", None) for r in done.working_set.retrievables] == [d.record.id for d in done.decisions if d.kept]
