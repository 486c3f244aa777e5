"""``fovea ...`` / ``python -m fovea ...``: the fovea command line (the C code of the
``fovea`` executable) and exits with its status; ``fovea demo`` is the workflow demo
of :mod:`fovea.demo`, ``fovea deconvolve --dask`` the chunked deconvolution of
:mod:`fovea.dask`."""

import sys

from . import _fovea


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "demo":
        # the workflow demo is Python (scikit-image's API on fovea's kernels);
        # `fovea demo --core` runs the C library's own demo
        from .demo import main as demo_main
        return demo_main(args[1:])
    if args and args[0] == "deconvolve" and "--dask" in args:
        # chunked on a dask cluster: fovea.dask (needs fovea[dask])
        from .dask._cli import main as dask_deconvolve
        return dask_deconvolve(args[1:])
    return _fovea.cli_main(["fovea", *args])


if __name__ == "__main__":
    sys.exit(main())
