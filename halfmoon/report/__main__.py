"""``python -m halfmoon.report RESULTS_DIR``: the Markdown report of a results dataset."""

import sys

from .markdown import main

sys.exit(main())
