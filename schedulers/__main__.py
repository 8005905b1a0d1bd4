"""``python -m schedulers``: the schedule tools' command line (see :mod:`schedulers.tools.cli`)."""

import sys

from schedulers.tools.cli import main

if __name__ == "__main__":
    sys.exit(main())
