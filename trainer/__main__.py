"""``python -m trainer fit CONFIG.yaml ...``: the ``cadence`` command (see :mod:`trainer.cli`)."""

import sys

from trainer.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m trainer"))
