"""``fovea ...`` / ``python -m fovea ...``: the fovea command line (the C code of the
``fovea`` executable) and exits with its status; ``fovea demo`` is the workflow demo
of :mod:`fovea.demo`."""

import sys

from . import _fovea


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "demo":
        # the workflow demo is Python (scikit-image's API on fovea's kernels);
        # `fovea demo --core` runs the C library's own demo
        from .demo import main as demo_main
        return demo_main(args[1:])
    return _fovea.cli_main(["fovea", *args])


if __name__ == "__main__":
    sys.exit(main())
