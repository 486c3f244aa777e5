"""scikit-image's ``skimage.registration`` on fovea (scikit-image 0.26
signatures): optical flow (TV-L1, iterative Lucas-Kanade). NumPy in, NumPy
out; CuPy in, CuPy out."""

from ._optical_flow import optical_flow_ilk, optical_flow_tvl1

__all__ = ["optical_flow_ilk", "optical_flow_tvl1"]
