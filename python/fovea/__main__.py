"""``python -m fovea ...`` runs the fovea command line (the same code as the
``fovea`` executable) and exits with its status."""

import sys

from . import _fovea


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    return _fovea.cli_main(["fovea", *args])


if __name__ == "__main__":
    sys.exit(main())
