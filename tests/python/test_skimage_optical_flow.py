"""fovea.skimage.registration's optical flow (TV-L1, iterative Lucas-Kanade)
against scikit-image 0.26 on smooth random images shifted by a known flow,
2-d and 3-d, float32 / float64, with NumPy and (marker gpu) CuPy inputs.
On the host the results equal scikit-image's; on the GPU the warps and filters
run in fovea's CUDA kernels and CuPy, so the flows are compared to 1e-3."""
import numpy as np
import pytest

skr = pytest.importorskip("skimage.registration")
from scipy import ndimage as sndi  # noqa: E402
from skimage.transform import warp  # noqa: E402

from fovea.skimage import registration as fr  # noqa: E402
from xpcase import xp_fixture  # noqa: E402

xp = xp_fixture()


def pair(shape, seed=0):
    img = sndi.gaussian_filter(np.random.default_rng(seed).random(shape), 2)
    flow = np.stack([np.full(shape, 1.5 - 0.8 * k) for k in range(len(shape))])
    grid = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    return warp(img, np.stack(grid) + flow, mode="edge"), img


def check(ours, ref, xp):
    ours = xp.get(ours)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=0, atol=0 if xp.name == "numpy" else 1e-3)


@pytest.mark.parametrize("fn", ["optical_flow_tvl1", "optical_flow_ilk"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [{}, {"prefilter": True}])
def test_flow_2d(xp, fn, dtype, kw):
    mov, ref_img = pair((48, 52))
    ref = getattr(skr, fn)(mov, ref_img, dtype=dtype, **kw)
    check(getattr(fr, fn)(xp.put(mov), xp.put(ref_img), dtype=dtype, **kw), ref, xp)


def test_ilk_gaussian_and_3d(xp):
    mov, ref_img = pair((40, 44))
    check(fr.optical_flow_ilk(xp.put(mov), xp.put(ref_img), gaussian=True, radius=3),
          skr.optical_flow_ilk(mov, ref_img, gaussian=True, radius=3), xp)
    img3 = sndi.gaussian_filter(np.random.default_rng(1).random((18, 19, 20)), 2)
    mov3 = np.roll(img3, 1, 0)
    for fn in ("optical_flow_tvl1", "optical_flow_ilk"):
        check(getattr(fr, fn)(xp.put(img3), xp.put(mov3)), getattr(skr, fn)(img3, mov3), xp)


def test_errors(xp):
    a = xp.put(np.zeros((20, 20)))
    with pytest.raises(ValueError):
        fr.optical_flow_tvl1(a, xp.put(np.zeros((20, 21))))
    with pytest.raises(ValueError):
        fr.optical_flow_ilk(a, a, dtype=np.int32)
    with pytest.raises(ValueError):
        fr.optical_flow_tvl1(a, a, dtype=np.float16)
