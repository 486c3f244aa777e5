"""scikit-image's ``skimage.color`` on fovea: ``from fovea.skimage import color``.

Colour-space conversions (RGB, HSV, XYZ, CIE Lab / Luv / LCh, YUV, YIQ, YPbPr,
YCbCr, YDbDr, RGB CIE, gray, RGBA), stain separation (HED and every stain
matrix scikit-image exports), colour differences (CIE76, CIEDE94, CIEDE2000,
CMC) and label2rgb. Per-pixel work runs in C: on all CPU cores for NumPy input,
in CUDA kernels for CuPy / CUDA torch input; the result has the input's array
type. Signatures, dtype rules and results follow scikit-image 0.26.
"""

from . import colorconv as _colorconv
from .colorconv import *  # noqa: F401,F403
from .colorconv import __all__ as _conv_all
from .colorlabel import DEFAULT_COLORS, color_dict, label2rgb  # noqa: F401
from .delta_e import deltaE_cie76, deltaE_ciede94, deltaE_ciede2000, deltaE_cmc  # noqa: F401

__all__ = list(_conv_all) + [
    "color_dict",
    "label2rgb",
    "deltaE_cie76",
    "deltaE_ciede94",
    "deltaE_ciede2000",
    "deltaE_cmc",
]
del _colorconv

from ..._interop import publish as _publish  # noqa: E402

_publish(globals(), __all__)
