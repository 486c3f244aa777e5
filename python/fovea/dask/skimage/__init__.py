"""fovea.skimage's local ops on dask arrays (docs/dask.md): filters, morphology,
color, exposure, each equal to the whole-array call for every chunking."""

from . import color, exposure, filters, morphology  # noqa: F401

__all__ = ["color", "exposure", "filters", "morphology"]
