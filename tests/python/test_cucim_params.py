"""cuCIM's extra keyword parameters (issue 30): cuCIM code passes them to the
functions fovea shares with cucim.skimage, and must run unchanged. Those that mean
something in fovea are honoured (gray2rgba's check_alpha, gabor_kernel's float_dtype,
mark_boundaries' order); the tuning switches of cuCIM's own kernels are accepted and
validated like cuCIM validates them."""
import warnings

import numpy as np
import pytest

from fovea.skimage import color, filters, measure, morphology, segmentation


def test_median_algorithm():
    img = (np.random.default_rng(0).random((20, 20)) * 255).astype(np.uint8)
    want = filters.median(img)
    for alg in ("auto", "histogram", "sorting"):
        np.testing.assert_array_equal(filters.median(img, algorithm=alg, algorithm_kwargs={}), want)
    with pytest.raises(ValueError, match="algorithm"):
        filters.median(img, algorithm="fast")
    with pytest.raises(TypeError, match="dict"):
        filters.median(img, algorithm_kwargs=3)


def test_regionprops_table_batch_processing():
    lab = np.zeros((10, 10), np.int32)
    lab[2:5, 2:6] = 1
    a = measure.regionprops_table(lab, properties=("label", "area"), batch_processing=False)
    b = measure.regionprops_table(lab, properties=("label", "area"))
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_reconstruction_and_h_extrema_on_cpu_switch():
    img = np.zeros((9, 9))
    img[4, 4] = 5
    img[2, 2] = 1
    np.testing.assert_array_equal(morphology.h_maxima(img, 2, reconstruct_on_cpu=True), morphology.h_maxima(img, 2))
    np.testing.assert_array_equal(morphology.h_minima(-img, 2, reconstruct_on_cpu=True), morphology.h_minima(-img, 2))
    seed = img - 1
    np.testing.assert_array_equal(morphology.reconstruction(seed, img, reconstruct_on_cpu=True),
                                  morphology.reconstruction(seed, img))


def test_convex_hull_switches():
    img = np.zeros((12, 12), bool)
    img[3, 3] = img[8, 9] = img[3, 9] = True
    want = morphology.convex_hull_image(img)
    got = morphology.convex_hull_image(img, omit_empty_coords_check=True, float64_computation=False,
                                       cpu_fallback_threshold=100)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(morphology.convex_hull_object(img, float64_computation=False,
                                                                cpu_fallback_threshold=0),
                                  morphology.convex_hull_object(img))


def test_gray2rgba_check_alpha():
    img = np.zeros((3, 3), np.uint8)
    with pytest.warns(UserWarning, match="alpha"):
        color.gray2rgba(img, alpha=300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = color.gray2rgba(img, alpha=300, check_alpha=False)
    assert out.shape == (3, 3, 4)


def test_gabor_kernel_float_dtype():
    k = filters.gabor_kernel(0.2, float_dtype=np.float32)
    assert k.dtype == np.complex64
    np.testing.assert_allclose(k, filters.gabor_kernel(0.2), rtol=1e-5, atol=1e-6)
    assert filters.gabor_kernel(0.2, float_dtype=np.float64).dtype == np.complex128
    with pytest.raises(ValueError, match="float_dtype"):
        filters.gabor_kernel(0.2, float_dtype=np.int32)
    with pytest.raises(ValueError, match="does not match"):
        filters.gabor_kernel(0.2, dtype=np.complex64, float_dtype=np.float64)


def test_mark_boundaries_order():
    img = np.random.default_rng(1).random((10, 12))
    lab = np.zeros((10, 12), np.int32)
    lab[2:7, 3:9] = 1
    default = segmentation.mark_boundaries(img, lab, mode="subpixel")
    np.testing.assert_array_equal(segmentation.mark_boundaries(img, lab, mode="subpixel", order=3), default)
    lin = segmentation.mark_boundaries(img, lab, mode="subpixel", order=1)
    assert lin.shape == default.shape and not np.array_equal(lin, default)


def test_white_tophat_listed():
    assert "white_tophat" in morphology.__all__
