"""The factor of the Anthropic adapter's default estimate: how much more than ``o200k_base`` a
tokenizer with a smaller vocabulary counts, on code, JSON, CJK and prose.

No Claude tokenizer is available offline, and the old ``len / 3.5`` estimate undercounts code,
JSON and CJK badly (a 400 from the API at the budget). The adapter's default estimate is
``ceil(o200k_base count x FACTOR)``: never below the ``o200k_base`` count of the same text, and
at least the ``cl100k_base`` count (a ~100k vocabulary, the size Claude's tokenizers are
reported to have) on every sample kind here. This script prints, per kind, the characters, the
``len/3.5`` estimate, the ``o200k_base`` and ``cl100k_base`` counts and the cl100k/o200k ratio;
FACTOR is the largest ratio rounded up to 0.05.

    python -m benchmarks.anthropic_estimate
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from thrift_fp.tokens import estimate_by_length, get_encoding

ROOT = Path(__file__).resolve().parent.parent

_CJK = (
    "検索した文書は、モデルに渡す前に信頼の区分ごとに封筒で包まれます。予算を超えると、関連度の低いものから順に削られます。"
    "系统会先丢弃得分最低的文档，然后才会删除旧的对话轮次。每条消息的令牌数都按照实际发送的格式计算。"
    "한국어 문서도 같은 규칙으로 처리됩니다. 예산을 넘으면 가장 오래된 대화부터 지웁니다."
)


def samples() -> dict[str, str]:
    """Deterministic samples of each kind (code and prose from this repository)."""
    rng = random.Random(7)
    code = (ROOT / "thrift_fp" / "thrift" / "_measure.py").read_text(encoding="utf-8")[:12_000]
    records = [
        {"id": f"doc-{i:04d}", "score": round(rng.random(), 4), "tags": ["refund", "policy", "eu"][: rng.randint(1, 3)],
         "meta": {"created_at": f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T08:00:00Z", "size": rng.randint(10, 9999)}}
        for i in range(60)
    ]
    data = json.dumps(records, indent=2)
    prose = (ROOT / "docs" / "thrift-decisions.md").read_text(encoding="utf-8")[:12_000]
    return {"code": code, "json": data, "cjk": _CJK * 8, "prose": prose}


def measure() -> tuple[dict[str, tuple[int, int, int, int]], float]:
    """Per kind (chars, len/3.5, o200k, cl100k) and the factor."""
    o200k = get_encoding("o200k_base").unwrap()
    cl100k = get_encoding("cl100k_base").unwrap()
    rows: dict[str, tuple[int, int, int, int]] = {}
    for kind, text in samples().items():
        rows[kind] = (len(text), estimate_by_length(text), o200k.count(text).unwrap(), cl100k.count(text).unwrap())
    ratio = max(row[3] / row[2] for row in rows.values())
    return rows, math.ceil(ratio * 20) / 20


def main() -> None:
    rows, factor = measure()
    print(f"{'kind':6} {'chars':>7} {'len/3.5':>8} {'o200k':>7} {'cl100k':>7} {'cl/o200k':>8}")
    for kind, (chars, length, o200k, cl100k) in rows.items():
        print(f"{kind:6} {chars:7d} {length:8d} {o200k:7d} {cl100k:7d} {cl100k / o200k:8.3f}")
    print(f"FACTOR = {factor}")


if __name__ == "__main__":
    main()
