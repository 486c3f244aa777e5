"""scikit-image's API on fovea: ``from fovea.skimage import filters`` in place of
``from skimage import filters`` (or ``cucim.skimage``).

Functions take NumPy arrays (run in C on all CPU cores), CuPy arrays or CUDA
torch tensors (run on the GPU), give back the same array type, and follow
scikit-image 0.26's signatures and results. Submodules load on first use.
"""

import importlib

__all__ = ["color", "exposure", "filters", "measure", "metrics", "morphology", "registration", "restoration", "segmentation",
           "transform"]

_SUBMODULES = frozenset(__all__)


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
