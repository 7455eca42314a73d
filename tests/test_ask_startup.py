"""What one `ask` process loads: nothing it will not use (issue 35, "answer in a blink").

Each check runs in a fresh interpreter, as `thrift-fp ask` does: loading the dense model for an
index that holds no vectors cost about a third of such a process, asyncio a few percent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from thrift_fp.sources import index_paths

_ASK = """
import json, sys
from pathlib import Path
from thrift_fp.sources import assemble, search_ranking
from thrift_fp.thrift import ThriftOptions
done = assemble(["shedding"], database=Path(sys.argv[1]), context_window=2000,
                options=ThriftOptions(refill=True), dense=True).unwrap()
ranking = search_ranking(Path(sys.argv[1]), dense=True).unwrap().as_json()
print(json.dumps({"kept": len(done.decisions), "ranking": ranking,
                  "loaded": sorted({"onnxruntime", "numpy", "tokenizers", "asyncio"} & set(sys.modules))}))
"""


def test_a_lexical_index_is_answered_without_the_model_numpy_or_asyncio(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "shed.md").write_text("# Shedding\n\nShedding drops the lowest score first.\n")
    index_paths(tmp_path / "index.db", [tmp_path / "docs"], dense=False).unwrap()
    answer = subprocess.run(
        [sys.executable, "-c", _ASK, str(tmp_path / "index.db")], capture_output=True, text=True, check=True,
    )
    shown = json.loads(answer.stdout)
    assert shown["kept"] == 1 and shown["loaded"] == []
    assert shown["ranking"]["ranking"] == "lexical"
    assert "no complete set of vectors" in shown["ranking"]["ranking_reason"] or "[dense] extra" in (
        shown["ranking"]["ranking_reason"]
    )
