"""cuCIM's ``cucim.clara.cache``: ``CacheType``, ``ImageCache`` (the view of fovea's
process-wide tile cache that ``CuImage.cache()`` returns) and
``preferred_memory_capacity`` (docs/cuimage.md)."""

from .._cucim import CacheType, preferred_memory_capacity
from .._slide import ImageCache

__all__ = ["CacheType", "ImageCache", "preferred_memory_capacity"]
