"""`python -m explorer` does what the `attention-explorer` command does."""

import sys

from explorer.cli import main

sys.exit(main())
