"""cuCIM's ``cucim.clara.io``: ``Device`` and ``DeviceType`` (docs/cuimage.md)."""

from .._cucim import Device, DeviceType

__all__ = ["DeviceType", "Device"]
