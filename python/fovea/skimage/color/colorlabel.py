"""skimage.color.label2rgb on fovea: the palette lookup and blending are array
expressions in NumPy or CuPy (so device data stays on the device; a few
scalars such as the label range are read back), the colour conversions of the
overlay go through fovea's C kernels (rgb2hsv / hsv2rgb)."""

import itertools
import warnings

import numpy as np

from ..._interop import like_input, prepare
from .._shared import cucim_rules, img_as_float, supported_float_type
from ._colors import color_dict
from .colorconv import gray2rgb, hsv2rgb, rgb2hsv

__all__ = ["color_dict", "label2rgb", "DEFAULT_COLORS"]

DEFAULT_COLORS = (
    "red",
    "blue",
    "yellow",
    "magenta",
    "green",
    "indigo",
    "darkorange",
    "cyan",
    "pink",
    "yellowgreen",
)


def _rgb_vector(color):
    if isinstance(color, str):
        color = color_dict[color]
    return np.array(color[:3])


def _match_label_with_color(label, xp, colors, bg_label, bg_color):
    """(mapped labels, flat: 0 for the background, 1.. for the others in
    sorted order; the colour cycle starting with the background colour)."""
    if bg_color is None:
        bg_color = (0, 0, 0)
    bg_color = _rgb_vector(bg_color)
    unique_labels, mapped = xp.unique(label, return_inverse=True)
    mapped = mapped.reshape(-1)
    rank = int((unique_labels < bg_label).sum())  # unique_labels is sorted
    has_bg = rank < unique_labels.size and int(unique_labels[rank]) == bg_label
    if has_bg:
        mapped = xp.where(mapped < rank, mapped + 1, mapped)
        mapped = xp.where(label.reshape(-1) == bg_label, 0, mapped)
    else:
        mapped = mapped + 1
    color_cycle = itertools.chain([bg_color], itertools.cycle(colors))
    return mapped, color_cycle


def label2rgb(
    label,
    image=None,
    colors=None,
    alpha=0.3,
    bg_label=0,
    bg_color=(0, 0, 0),
    image_alpha=1,
    kind="overlay",
    *,
    saturation=0,
    channel_axis=-1,
):
    """An RGB image with each label painted in its colour, as skimage.color.label2rgb.

    kind 'overlay': colours blended over `image` (converted to gray as
    scikit-image does: saturation scales the HSV saturation) with `alpha`;
    kind 'avg': each label painted with the mean colour of `image` under it."""
    lab, xp, back = prepare(label)
    if image is not None:
        image = like_input(image, lab, "image")
        image = xp.moveaxis(xp.asarray(image), channel_axis, -1)
    if kind == "overlay":
        rgb = _overlay(lab, xp, image, colors, alpha, bg_label, bg_color, image_alpha, saturation)
    elif kind == "avg":
        rgb = _avg(lab, xp, image, bg_label, bg_color)
    else:
        raise ValueError("`kind` must be either 'overlay' or 'avg'.")
    return back(xp.moveaxis(rgb, -1, channel_axis))


def _overlay(label, xp, image, colors, alpha, bg_label, bg_color, image_alpha, saturation):
    if not 0 <= saturation <= 1:
        warnings.warn(f"saturation must be in range [0, 1], got {saturation}", stacklevel=3)
    if colors is None:
        colors = DEFAULT_COLORS
    colors = [_rgb_vector(c) for c in colors]
    # cuCIM (CuPy data): float32 without an image, else the image's float type
    out_dtype = (np.float32 if image is None else supported_float_type(image)) if cucim_rules(xp) else None
    if image is None:
        image = xp.zeros(label.shape + (3,), dtype=np.float64)
        alpha = 1
    else:
        if image.shape[: label.ndim] != label.shape or image.ndim > label.ndim + 1:
            raise ValueError("`image` and `label` must be the same shape")
        if image.ndim == label.ndim + 1 and image.shape[-1] != 3:
            raise ValueError("`image` must be RGB (image.shape[-1] must be 3).")
        if image.size and bool(image.min() < 0):
            warnings.warn("Negative intensities in `image` are not supported", stacklevel=3)
        float_dtype = supported_float_type(image)
        image = img_as_float(image, xp).astype(float_dtype, copy=False)
        if image.ndim > label.ndim:
            hsv = rgb2hsv(image)
            hsv[..., 1] *= saturation
            image = hsv2rgb(hsv)
        elif image.ndim == label.ndim:
            image = gray2rgb(image)
        image = image * image_alpha + (1 - image_alpha)

    if label.size == 0:
        return image if out_dtype is None else image.astype(out_dtype, copy=False)
    offset = min(int(label.min()), bg_label)
    if offset != 0:
        label = label - offset
        bg_label -= offset
    new_type = np.min_scalar_type(int(label.max()))
    if new_type == bool:
        new_type = np.uint8
    label = label.astype(new_type)
    mapped_flat, color_cycle = _match_label_with_color(label, xp, colors, bg_label, bg_color)
    n = int(mapped_flat.max()) + 1
    label_to_color = np.stack([c for _, c in zip(range(n), color_cycle)])
    mapped = mapped_flat.astype(new_type).reshape(label.shape)
    result = xp.asarray(label_to_color)[mapped] * alpha + image * (1 - alpha)
    if bg_color is None and bool((mapped_flat == 0).any()):
        # scikit-image compares the *mapped* labels with bg_label here (its
        # label array is overwritten by the mapping); do the same
        bg = (mapped == bg_label)[..., None]
        result = xp.where(bg, image, result)
    return result if out_dtype is None else result.astype(out_dtype, copy=False)


def _avg(label_field, xp, image, bg_label, bg_color):
    out = xp.zeros(label_field.shape + (3,), dtype=image.dtype)
    if label_field.size == 0:
        return out
    labels, inverse = xp.unique(label_field, return_inverse=True)
    inverse = inverse.reshape(-1)
    nl = int(labels.size)
    img = image.reshape(label_field.size, -1)
    counts = xp.bincount(inverse, minlength=nl)
    means = xp.stack(
        [xp.bincount(inverse, weights=img[:, c].astype(np.float64), minlength=nl) for c in range(img.shape[1])],
        axis=-1,
    ) / xp.maximum(counts, 1)[:, None]
    if image.dtype.kind == "f":
        means = means.astype(image.dtype)
    colors = xp.broadcast_to(means, (nl, 3)).astype(image.dtype)
    is_bg = labels == bg_label
    if bool(is_bg.any()):
        bgc = xp.asarray(np.broadcast_to(np.asarray(bg_color), (3,))).astype(image.dtype)
        colors = xp.where(is_bg[:, None], bgc[None, :], colors)
    return colors[inverse].reshape(label_field.shape + (3,))
