"""cuCIM's ``cucim.clara`` namespace over fovea: ``CuImage``, ``io`` (``Device``,
``DeviceType``), ``cache`` (``CacheType``, ``ImageCache``,
``preferred_memory_capacity``) and ``filesystem``, so that cuCIM code ports by
changing ``cucim.clara`` to ``fovea.clara`` (docs/cuimage.md)."""

from .. import filesystem
from .._slide import CuImage
from . import cache, io

__all__ = ["CuImage", "cache", "filesystem", "io"]
