"""scikit-image's measure module (0.26 API) on fovea's kernels: so far
``label``, connected-component labelling in C on all CPU cores or in CUDA."""

from ._label import label

__all__ = ["label"]
