"""scikit-image's ``skimage.registration`` on fovea (scikit-image 0.26 signatures):
``phase_cross_correlation`` (with masks too; its transforms in fovea.fft: the CPU
engine for NumPy input, cuFFT for CuPy / CUDA torch input; docs/restoration.md) and
optical flow (TV-L1, iterative Lucas-Kanade; docs/denoise.md). NumPy in, NumPy out;
CuPy in, CuPy out."""

from ._optical_flow import optical_flow_ilk, optical_flow_tvl1
from ._phase_cross_correlation import phase_cross_correlation

__all__ = ["optical_flow_ilk", "optical_flow_tvl1", "phase_cross_correlation"]

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
