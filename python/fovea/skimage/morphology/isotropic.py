"""Isotropic binary morphology (skimage.morphology.isotropic of scikit-image
0.26): thresholds of the Euclidean distance transform of fovea's scipy.ndimage
layer, exact for any radius and cheap for large ones."""

from ... import ndimage as ndi
from ... import _interop as ix

__all__ = ["isotropic_erosion", "isotropic_dilation", "isotropic_opening", "isotropic_closing"]


def _finish(res, out, back):
    return out if out is not None else back(res)


def isotropic_erosion(image, radius, out=None, spacing=None):
    """Pixels of image farther than radius from the background (bool)."""
    img, _, back = ix.prepare(image)
    dist = ndi.distance_transform_edt(img, sampling=spacing)
    return _finish(ix.xp_of(img).greater(dist, radius, out=ix.inner(out, img)), out, back)


def isotropic_dilation(image, radius, out=None, spacing=None):
    """Pixels within radius of the foreground of image (bool)."""
    img, _, back = ix.prepare(image)
    xp = ix.xp_of(img)
    dist = ndi.distance_transform_edt(xp.logical_not(img), sampling=spacing)
    return _finish(xp.less_equal(dist, radius, out=ix.inner(out, img)), out, back)


def isotropic_opening(image, radius, out=None, spacing=None):
    """Isotropic erosion then dilation."""
    eroded = isotropic_erosion(image, radius, out=out, spacing=spacing)
    return isotropic_dilation(eroded, radius, out=out, spacing=spacing)


def isotropic_closing(image, radius, out=None, spacing=None):
    """Isotropic dilation then erosion."""
    dilated = isotropic_dilation(image, radius, out=out, spacing=spacing)
    return isotropic_erosion(dilated, radius, out=out, spacing=spacing)
