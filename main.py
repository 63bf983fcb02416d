"""Thin launcher: `python main.py [args]` is `attention-explorer [args]`."""

import sys

from explorer.cli import main

if __name__ == "__main__":
    sys.exit(main())
