"""``python -m thrift_fp``: the ``thrift-fp`` command."""

from thrift_fp.cli import entry

# Guarded so that importing this module (pytest's doctest collection does) runs nothing.
if __name__ == "__main__":
    entry()
