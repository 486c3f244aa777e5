"""fovea on dask arrays: slides and stacks as dask arrays, fovea's local ops
blockwise with exact borders, the global ops across chunks (docs/dask.md).

Needs the optional dependencies ``pip install 'fovea[dask]'`` (dask[array],
distributed, zarr); ``import fovea`` does not.
"""

try:
    import dask  # noqa: F401
    import dask.array  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised without dask only
    raise ImportError("fovea.dask needs dask: pip install 'fovea[dask]' "
                      "(dask[array], distributed, zarr)") from e

from . import ndimage, skimage  # noqa: E402
from ._global import (histogram, label, regionprops_table, threshold_isodata,  # noqa: E402
                      threshold_minimum, threshold_multiotsu, threshold_otsu, threshold_yen)
from ._deconvolve import richardson_lucy  # noqa: E402
from ._io import imread, slide_to_dask, slide_to_dask_pyramid, to_ome_zarr, to_zarr  # noqa: E402
from ._watershed import watershed  # noqa: E402

__all__ = ["histogram", "imread", "label", "ndimage", "regionprops_table", "richardson_lucy", "skimage", "threshold_isodata",
           "threshold_minimum", "threshold_multiotsu", "threshold_otsu", "threshold_yen", "slide_to_dask", "slide_to_dask_pyramid", "to_ome_zarr", "to_zarr",
           "watershed"]
