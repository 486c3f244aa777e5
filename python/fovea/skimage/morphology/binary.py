"""Binary morphology (skimage.morphology.binary of scikit-image 0.26, deprecated
there since 0.26 and so here: each call warns with FutureWarning) on fovea's
scipy.ndimage layer."""

import warnings

from ... import ndimage as ndi
from ... import _interop as ix
from ._util import default_footprint, host_footprint
from .footprints import _footprint_is_sequence, pad_footprint

__all__ = ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing"]

_HINTS = {
    "binary_erosion": "Use `skimage.morphology.erosion` instead. Note the pixel shift by 1 for "
    "even-sized footprints (see docstring notes).",
    "binary_dilation": "Use `skimage.morphology.dilation` instead. Note the lack of mirroring for "
    "non-symmetric footprints (see docstring notes).",
    "binary_opening": "Use `skimage.morphology.opening` instead.",
    "binary_closing": "Use `skimage.morphology.closing` instead.",
}


def _warn(name):
    warnings.warn(
        f"`{name}` is deprecated since version 0.26 and will be removed in version 0.28. {_HINTS[name]}",
        category=FutureWarning,
        stacklevel=4,
    )


def _binary(func, image, footprint, out, mode, border_value):
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    out_in = ix.inner(out, img)
    if out_in is None:
        out_in = xp.empty(img.shape, dtype=bool)
    if mode not in {"max", "min", "ignore"}:
        raise ValueError(f"unsupported mode, got {mode!r}")
    footprint = pad_footprint(host_footprint(footprint), pad_end=True)
    seq = footprint if _footprint_is_sequence(footprint) else [(footprint, 1)]
    for k, (fp, num_iter) in enumerate(seq):
        src = img if k == 0 else out_in.copy()
        func(src, structure=fp, output=out_in, iterations=num_iter, border_value=border_value)
    return out if out is not None else back(out_in)


def _erosion(image, footprint, out, mode):
    return _binary(ndi.binary_erosion, image, footprint, out, mode, mode != "min")


def _dilation(image, footprint, out, mode):
    return _binary(ndi.binary_dilation, image, footprint, out, mode, mode == "max")


@default_footprint
def binary_erosion(image, footprint=None, out=None, *, mode="ignore"):
    """Fast binary erosion (deprecated in scikit-image 0.26: use erosion).

    mode: 'max' or 'ignore' (outside counts as True), 'min' (as False).
    footprint: array or sequence of (array, repetitions); even extents padded at
    the end. out: optional bool output.
    """
    _warn("binary_erosion")
    return _erosion(image, footprint, out, mode)


@default_footprint
def binary_dilation(image, footprint=None, out=None, *, mode="ignore"):
    """Fast binary dilation (deprecated in scikit-image 0.26: use dilation).

    mode: 'max' (outside counts as True), 'min' or 'ignore' (as False).
    """
    _warn("binary_dilation")
    return _dilation(image, footprint, out, mode)


@default_footprint
def binary_opening(image, footprint=None, out=None, *, mode="ignore"):
    """Binary erosion then dilation (deprecated in scikit-image 0.26: use opening)."""
    _warn("binary_opening")
    return _dilation(_erosion(image, footprint, None, mode), footprint, out, mode)


@default_footprint
def binary_closing(image, footprint=None, out=None, *, mode="ignore"):
    """Binary dilation then erosion (deprecated in scikit-image 0.26: use closing)."""
    _warn("binary_closing")
    return _erosion(_dilation(image, footprint, None, mode), footprint, out, mode)
