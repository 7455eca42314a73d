"""``python -m benchmarks``: run every workload (see benchmarks/run_all.py)."""

import sys

from benchmarks.run_all import main

sys.exit(main(sys.argv[1:]))
