"""scikit-image's ``skimage.registration`` on fovea (scikit-image 0.26 signatures):
``phase_cross_correlation`` (with masks too), its transforms in fovea.fft (the CPU
engine for NumPy input, cuFFT for CuPy / CUDA torch input). docs/restoration.md."""

from ._phase_cross_correlation import phase_cross_correlation

__all__ = ["phase_cross_correlation"]
