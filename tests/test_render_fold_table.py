"""The shipped look-alike table is exactly what `tools/fold_build.py` derives from its cited source."""

from __future__ import annotations

import importlib.metadata
import unicodedata
from pathlib import Path

import pytest

from thrift_fp.render import _fold_table
from tools import fold_build


def test_the_shipped_table_is_the_generated_one() -> None:
    pytest.importorskip("confusable_homoglyphs", reason="the source data comes with the dev extra")
    if unicodedata.unidata_version != _fold_table.UNIDATA_VERSION:
        pytest.skip(f"table built with unicodedata {_fold_table.UNIDATA_VERSION}, this Python has another")
    if importlib.metadata.version("confusable-homoglyphs") != _fold_table.SOURCE_VERSION:
        pytest.skip(f"table built from confusable-homoglyphs {_fold_table.SOURCE_VERSION}; regenerate it")
    shipped = Path(_fold_table.__file__).read_text(encoding="utf-8")
    assert shipped == fold_build.table_source()


def test_every_ascii_digit_folds_only_from_look_alikes_and_never_to_another_digit() -> None:
    table = _fold_table.DIGIT_LOOKALIKES
    assert len(table) == 10
    for digit, chars in enumerate(table):
        assert str(digit) not in chars
        assert not any(char in "0123456789" for char in chars)
    for char, digit in (("O", 0), ("o", 0), ("\u041e", 0), ("l", 1), ("I", 1), ("|", 1), ("\u0417", 3), ("\u0431", 6)):
        assert char in table[digit]
    # Every decimal digit of every script folds to its value.
    for code in (0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0xFF10, 0x1D7CE):
        for offset in range(10):
            assert chr(code + offset) in table[offset]


def test_importing_the_package_does_not_import_the_source_data() -> None:
    import subprocess
    import sys

    probe = "import sys, thrift_fp; print('confusable_homoglyphs' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "False"
