"""Fit a working set written as JSON, as `thrift-fp fit FILE` does, from Python.

`thrift_fp.cli.run` runs the command line in process and returns its exit status (0 fits, 3 the
protected items alone exceed the budget); `thrift-fp schema` prints the JSON Schema of the input.

    python examples/fit_working_set_json.py
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

from thrift_fp.cli import run

request = {
    "context_window": 400,
    "relevant_tool_names": ["search"],
    "options": {"output_reserve": 100},
    "working_set": {
        "system_prompt": "You answer from the retrieved passages.",
        "messages": [
            {"id": "m1", "content": "An earlier question. " * 30, "created_at": "2026-12-01T10:00:00Z", "role": "user"},
            {"id": "m2", "content": "How does shedding work?", "created_at": "2026-12-01T10:05:00Z", "role": "user"},
        ],
        "retrievables": [
            {"id": "p1", "content": "Shedding drops the lowest score first.", "score": 0.9},
            {"id": "p2", "content": "An unrelated long passage. " * 60, "score": 0.1},
        ],
        "tools": [{"name": "search", "description": "Search the index."}, {"name": "shell", "description": "Run a command."}],
    },
}

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "working-set.json"
    path.write_text(json.dumps(request))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run(["fit", str(path)])
    fitted = json.loads(out.getvalue())
    trace = fitted["trace"]
    print(f"exit status {status}: fits={trace['fits']}, {trace['total_after']} of {trace['budget']} tokens")
    print("kept passages:", [p["id"] for p in fitted["working_set"]["retrievables"]])
    for bucket in trace["buckets"]:
        if bucket["ids"]:
            print(f"shed from {bucket['bucket']}: {bucket['ids']}")
