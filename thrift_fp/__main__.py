"""``python -m thrift_fp``: the ``thrift-fp`` command."""

from thrift_fp.cli import main

main()
