"""The documentation of regionprops and of each RegionProperties property, in
scikit-image's layout (``**name** : type`` entries, which scikit-image's
``_parse_docs`` and its tests read), installed on the properties as their
docstrings."""

import inspect
import sys

_HEAD = """Measure the properties of the labelled regions of a label image.

    Parameters
    ----------
    label_image : (M, N[, P]) ndarray of int
        Labelled image; 0 is background and is ignored. NumPy or CuPy (the
        properties of CuPy regions are computed on the GPU).
    intensity_image : ndarray, optional
        Intensity image of the label image's shape, optionally with channels on
        a last extra axis; needed by the intensity and weighted properties.
    cache : bool, optional
        Keep each property once computed (default True).
    extra_properties : iterable of callables, optional
        Functions ``f(regionmask)`` or ``f(regionmask, intensity_image)``
        computed per region under their own names.
    spacing : tuple of float, optional
        Pixel spacing per axis; distances, areas and moments are scaled by it.
    offset : tuple of int, optional
        Coordinates of the image's origin (for regions of a crop).

    Returns
    -------
    properties : list of RegionProperties
        One per label present, in label order. Each has the properties below.

    Notes
    -----
    The properties, all in the units of ``spacing`` (pixels without it):

"""

# (name, type, description lines)
_PROPS = [
    ("area", "float", ["Area of the region: its pixel count times the pixel area."]),
    ("area_bbox", "float", ["Area of the region's bounding box."]),
    ("area_convex", "float", ["Area of the convex hull image, the smallest convex polygon that encloses the region."]),
    ("area_filled", "float", ["Area of the region with all its holes filled."]),
    ("axis_major_length", "float",
     ["Length of the major axis of the ellipse (or ellipsoid) that has the same normalized",
      "second central moments as the region."]),
    ("axis_minor_length", "float",
     ["Length of the minor axis of the ellipse (or ellipsoid) that has the same normalized",
      "second central moments as the region."]),
    ("bbox", "tuple", ["Bounding box ``(min_row, min_col, max_row, max_col)`` (n-d: all minima, then all",
                       "maxima); pixels of the region lie in the half-open interval."]),
    ("centroid", "array", ["Centroid coordinate tuple ``(row, col)``."]),
    ("centroid_local", "array", ["Centroid coordinate tuple ``(row, col)``, relative to the region's bounding box."]),
    ("centroid_weighted", "array",
     ["Centroid coordinate tuple ``(row, col)`` weighted with the intensity image (one per",
      "channel with a channel axis)."]),
    ("centroid_weighted_local", "array",
     ["Intensity-weighted centroid relative to the region's bounding box."]),
    ("coords", "(K, 2) ndarray", ["Coordinate list ``(row, col)`` of the region's pixels."]),
    ("coords_scaled", "(K, 2) ndarray",
     ["Coordinate list ``(row, col)`` of the region's pixels, scaled by ``spacing``."]),
    ("eccentricity", "float",
     ["Eccentricity of the ellipse that has the same second moments as the region: the",
      "ratio of the focal distance over the major axis length, in [0, 1) (0: a circle)."]),
    ("equivalent_diameter_area", "float", ["Diameter of a circle (or sphere) of the region's area (or volume)."]),
    ("euler_number", "int",
     ["Euler characteristic of the set of non-zero pixels: objects minus holes in 2-D",
      "(8-connectivity), objects plus cavities minus tunnels in 3-D (26-connectivity)."]),
    ("extent", "float", ["Ratio of the region's pixels to its bounding box's."]),
    ("feret_diameter_max", "float",
     ["Maximum Feret's diameter: the longest distance between points of the region's",
      "convex hull (computed on the outline's pixel corners, as scikit-image does)."]),
    ("image", "(H, J) ndarray", ["Binary region image, the size of the bounding box."]),
    ("image_convex", "(H, J) ndarray", ["Binary convex hull image, the size of the bounding box."]),
    ("image_filled", "(H, J) ndarray", ["Binary region image with its holes filled, the size of the bounding box."]),
    ("image_intensity", "ndarray", ["Image inside the region's bounding box (zero outside the region)."]),
    ("inertia_tensor", "ndarray", ["Inertia tensor of the region for the rotation around its mass."]),
    ("inertia_tensor_eigvals", "tuple", ["The eigenvalues of the inertia tensor in decreasing order."]),
    ("intensity_max", "float", ["Value with the greatest intensity in the region."]),
    ("intensity_mean", "float", ["Value with the mean intensity in the region."]),
    ("intensity_median", "float", ["Value with the median intensity in the region."]),
    ("intensity_min", "float", ["Value with the least intensity in the region."]),
    ("intensity_std", "float", ["Standard deviation of the intensity in the region."]),
    ("label", "int", ["The label in the labelled input image."]),
    ("moments", "(3, 3) ndarray",
     ["Spatial moments up to the 3rd order:", "",
      "    m_ij = sum{ array(row, col) * row^i * col^j }", "",
      "where the sum is over the region's pixels (bounding-box coordinates)."]),
    ("moments_central", "(3, 3) ndarray",
     ["Central moments (translation invariant) up to the 3rd order:", "",
      "    mu_ij = sum{ array(row, col) * (row - row_c)^i * (col - col_c)^j }", "",
      "where the sum is over the region's pixels and ``(row_c, col_c)`` is its centroid."]),
    ("moments_hu", "tuple",
     ["Hu moments (translation, scale and rotation invariant), from the normalized",
      "central moments; 2-D regions and unit spacing only."]),
    ("moments_normalized", "(3, 3) ndarray",
     ["Normalized moments (translation and scale invariant) up to the 3rd order:", "",
      "    nu_ij = mu_ij / m_00^[(i+j)/2 + 1]", "",
      "where ``m_00`` is the zeroth spatial moment; entries with i + j < 2 are NaN."]),
    ("moments_weighted", "(3, 3) ndarray",
     ["Spatial moments of the intensity image up to the 3rd order:", "",
      "    wm_ij = sum{ intensity(row, col) * row^i * col^j }", "",
      "over the region's pixels (bounding-box coordinates); one per channel."]),
    ("moments_weighted_central", "(3, 3) ndarray",
     ["Central moments of the intensity image up to the 3rd order:", "",
      "    wmu_ij = sum{ intensity(row, col) * (row - row_c)^i * (col - col_c)^j }", "",
      "where ``(row_c, col_c)`` is the intensity-weighted centroid; one per channel."]),
    ("moments_weighted_hu", "tuple",
     ["Hu moments of the intensity image, from the weighted normalized central moments;",
      "2-D regions and unit spacing only."]),
    ("moments_weighted_normalized", "(3, 3) ndarray",
     ["Normalized moments of the intensity image up to the 3rd order:", "",
      "    wnu_ij = wmu_ij / wm_00^[(i+j)/2 + 1]", "",
      "where ``wm_00`` is the zeroth weighted spatial moment; entries with i + j < 2 are NaN."]),
    ("num_pixels", "int", ["Number of the region's pixels."]),
    ("orientation", "float",
     ["Angle between the 0th axis (rows) and the major axis of the ellipse that has the",
      "same second moments as the region, from -pi/2 to pi/2 counter-clockwise."]),
    ("perimeter", "float",
     ["Perimeter of the region: a line through the centres of its border pixels, 4-connectivity."]),
    ("perimeter_crofton", "float",
     ["Perimeter of the region by the Crofton formula, in 4 directions."]),
    ("slice", "tuple of slices", ["A slice to take the region's bounding box from the source image."]),
    ("solidity", "float", ["Ratio of the region's pixels to its convex hull image's."]),
]


def regionprops_doc():
    body = []
    for name, typ, lines in _PROPS:
        body.append(f"    **{name}** : {typ}")
        body += [("        " + ln) if ln else "" for ln in lines]
    tail = """

    Each property is also the attribute of that name, and ``region[name]``.
    Properties that need the intensity image raise AttributeError without it.

    See Also
    --------
    regionprops_table : the same properties as columns.
    """
    doc = _HEAD + "\n".join(body) + tail
    if sys.version_info >= (3, 13):   # as the compiler stores docstrings there: dedented
        doc = inspect.cleandoc(doc)
    return doc


def install(regionprops, region_class):
    """regionprops' docstring, and each property's own."""
    regionprops.__doc__ = regionprops_doc()
    for name, _, lines in _PROPS:
        prop = region_class.__dict__.get(name)
        if isinstance(prop, property):
            setattr(region_class, name, property(prop.fget, prop.fset, prop.fdel, "\n".join(lines)))
