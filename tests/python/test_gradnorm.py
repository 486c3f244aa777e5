"""The fused gradient-magnitude tail (fovea._fovea.gradient_norm, fv_gradient_norm)
and the functions that finish with it: skimage.filters sobel / scharr / prewitt /
farid magnitudes and scipy.ndimage gaussian_gradient_magnitude /
generic_gradient_magnitude. Everything is compared bit for bit
(assert_array_equal) with scikit-image / scipy / NumPy's chain on random data;
the CuPy variants carry the ``gpu`` marker (skipped without a GPU and CuPy).
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fovea
from conftest import random_array
from fovea import _fovea
from fovea import ndimage as fndi
from fovea.skimage import filters as ff

skf = pytest.importorskip("skimage.filters")
sndi = pytest.importorskip("scipy.ndimage")


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    if request.param == "numpy":
        return np
    return request.getfixturevalue("cp")


def to_host(x, xp):
    assert isinstance(x, xp.ndarray), f"expected {xp.__name__}.ndarray, got {type(x)}"
    return x.get() if xp is not np else x


def same(ours, ref, xp, exact=False):
    """Bits on the host. On a GPU the filters before the fused tail are within
    the suite's float tolerance of scipy's (test_skimage_filters: rtol 1e-5 /
    1e-10, atol scaled to the result), not bit for bit; the fused op's own bits
    on the GPU are checked against the CuPy chain (test_fused_matches_chain_gpu)
    and by tests/c/test_gradnorm.c."""
    got = to_host(ours, xp)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    if exact or xp is np or got.dtype.kind != "f":
        assert_array_equal(got, ref, strict=True)
        return
    rtol = 1e-5 if ref.dtype == np.float32 else 1e-10
    finite = np.isfinite(ref)
    assert_array_equal(np.isnan(got), np.isnan(ref))
    assert_array_equal(got[~finite & ~np.isnan(ref)], ref[~finite & ~np.isnan(ref)])
    scale = float(np.abs(ref[finite]).max()) if finite.any() else 0.0
    np.testing.assert_allclose(got[finite], ref[finite], rtol=rtol, atol=rtol * max(scale, 1e-30))


def image(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dtype)
    return random_array(rng, shape, dtype)


SHAPES = {2: (37, 45), 3: (9, 12, 14)}


# ---- the op itself -------------------------------------------------------------------


def numpy_chain(parts, div):
    with np.errstate(all="ignore"):
        out = parts[0] * parts[0]
        for p in parts[1:]:
            out += p * p
        out = np.sqrt(out)
        if div != 1:
            out = out / np.asarray(div, dtype=out.dtype)
    return out


def special_values(rng, shape, dtype):
    """Normal values of every magnitude with 0, -0.0, subnormals, inf, NaN and
    values whose squares overflow sprinkled in."""
    info = np.finfo(dtype)
    a = rng.standard_normal(shape) * np.exp2(rng.integers(info.minexp // 2 - 8, info.maxexp // 2 + 8, shape))
    a = a.astype(dtype)
    pick = rng.integers(0, 12, shape)
    a[pick == 0] = 0
    a[pick == 1] = -0.0
    a[pick == 2] = info.smallest_subnormal * rng.integers(1, 1000, shape)[pick == 2]
    a[pick == 3] = np.inf
    a[pick == 4] = -np.inf
    a[pick == 5] = np.nan
    a[pick == 6] = info.max / rng.integers(1, 1000, shape)[pick == 6]
    return a


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nparts", [1, 2, 3, 4])
@pytest.mark.parametrize("div", [1.0, 2.0, np.sqrt(3)])
def test_op_special_values(xp, rng, dtype, nparts, div):
    parts = [special_values(rng, (33, 29), dtype) for _ in range(nparts)]
    ref = numpy_chain(parts, div)
    dparts = [xp.asarray(p) for p in parts]
    out = xp.empty_like(dparts[0])
    stream = None if xp is np else xp.cuda.get_current_stream().ptr
    _fovea.gradient_norm(dparts, out, float(np.asarray(div, dtype=dtype)), stream=stream)
    same(out, ref, xp, exact=True)
    _fovea.gradient_norm(dparts, dparts[0], float(np.asarray(div, dtype=dtype)), stream=stream)   # in place
    same(dparts[0], ref, xp, exact=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_op_views(xp, rng, dtype):
    base = [special_values(rng, (20, 31, 9), dtype) for _ in range(3)]

    def views(b):   # (10, 30, 9): step 2, reversed with step -2, transposed then stepped
        return [b[0][::2, 1:, :], b[1][::-2, :-1, :], b[2].transpose(1, 0, 2)[::1, ::2, :].transpose(1, 0, 2)[:, :30]]

    parts = views(base)
    ref = numpy_chain(parts, 1.0)
    dparts = views([xp.asarray(b) for b in base])
    out_base = xp.zeros((10, 31, 20), dtype)
    out = out_base[:, 1:, :9]
    stream = None if xp is np else xp.cuda.get_current_stream().ptr
    _fovea.gradient_norm(dparts, out, stream=stream)
    same(out.copy(), ref, xp, exact=True)
    rest = to_host(out_base, xp).copy()
    rest[:, 1:, :9] = 0
    assert not rest.any()   # nothing outside the view written


def test_op_errors():
    a = np.ones((4, 5), np.float32)
    with pytest.raises(TypeError, match="float32 or float64"):
        _fovea.gradient_norm([np.ones((4, 5), np.int32)], np.ones((4, 5), np.int32))
    with pytest.raises(TypeError, match="part 1 is float64"):
        _fovea.gradient_norm([a, np.ones((4, 5))], a.copy())
    with pytest.raises(ValueError, match="shape"):
        _fovea.gradient_norm([a, np.ones((5, 4), np.float32)], a.copy())
    with pytest.raises(ValueError, match="1 to 8 parts"):
        _fovea.gradient_norm([], a)
    with pytest.raises(ValueError, match="1 to 8 parts"):
        _fovea.gradient_norm([a] * 9, a.copy())
    with pytest.raises(ValueError, match="> 0"):
        _fovea.gradient_norm([a], a.copy(), -1.0)
    big = np.zeros((5, 5), np.float32)
    with pytest.raises(ValueError, match="overlaps"):
        _fovea.gradient_norm([big[1:]], big[:-1])
    ro = a.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _fovea.gradient_norm([a], ro)
    assert (a == 1).all()


# ---- skimage edge magnitudes -------------------------------------------------------


@pytest.mark.parametrize("name", ["sobel", "scharr", "prewitt", "farid"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("masked", [False, True])
def test_edges(xp, rng, name, dtype, ndim, masked):
    img = image(rng, SHAPES[ndim], dtype)
    mask = rng.random(img.shape) < 0.8 if masked else None
    ref = getattr(skf, name)(img, mask=mask)
    ours = getattr(ff, name)(xp.asarray(img), mask=None if mask is None else xp.asarray(mask))
    same(ours, ref, xp)


@pytest.mark.parametrize("name", ["sobel", "farid"])
@pytest.mark.parametrize("axis", [(0, 2), [2, 1], (0, 1, 2)])
@pytest.mark.parametrize("mode", ["reflect", "constant", "wrap"])
def test_edges_axes(xp, rng, name, axis, mode):
    img = image(rng, SHAPES[3], "float32")
    ref = getattr(skf, name)(img, axis=axis, mode=mode, cval=1.5)
    ours = getattr(ff, name)(xp.asarray(img), axis=axis, mode=mode, cval=1.5)
    same(ours, ref, xp)


def test_edges_special_values(xp, rng):
    img = special_values(rng, (31, 40), "float32")
    with np.errstate(all="ignore"):
        ref = skf.sobel(img)
    ours = ff.sobel(xp.asarray(img))
    same(ours, ref, xp)


# ---- ndimage gradient magnitudes ---------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
@pytest.mark.parametrize("output", [None, "float32", "float64", "int32"])
@pytest.mark.parametrize("ndim", [2, 3])
def test_gaussian_gradient_magnitude(xp, rng, dtype, output, ndim):
    img = image(rng, SHAPES[ndim], dtype)
    out = None if output is None else np.dtype(output)
    ref = sndi.gaussian_gradient_magnitude(img, 1.7, output=out)
    ours = fndi.gaussian_gradient_magnitude(xp.asarray(img), 1.7, output=out)
    same(ours, ref, xp)


@pytest.mark.parametrize("output", ["float32", "float64", "int16"])
def test_gaussian_gradient_magnitude_out_array(xp, rng, output):
    img = image(rng, SHAPES[2], "float64")
    ref = np.zeros(img.shape, output)
    sndi.gaussian_gradient_magnitude(img, 1.2, output=ref, mode=["nearest", "wrap"])
    buf = xp.zeros((img.shape[1], img.shape[0]), output)
    ours = buf.T   # a Fortran-order view
    res = fndi.gaussian_gradient_magnitude(xp.asarray(img), 1.2, output=ours, mode=["nearest", "wrap"])
    assert res is ours
    same(ours.copy(), ref, xp)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gaussian_gradient_magnitude_in_place(xp, rng, dtype):
    """output=input: scipy's chain reads the overwritten input; so must we."""
    img = image(rng, SHAPES[2], dtype)
    ref = img.copy()
    sndi.gaussian_gradient_magnitude(ref, 1.5, output=ref)
    ours = xp.asarray(img)
    fndi.gaussian_gradient_magnitude(ours, 1.5, output=ours)
    same(ours, ref, xp)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
@pytest.mark.parametrize("output", [None, "float32", "float64", "int32"])
@pytest.mark.parametrize("ndim", [2, 3])
def test_generic_gradient_magnitude(xp, rng, dtype, output, ndim):
    img = image(rng, SHAPES[ndim], dtype)
    out = None if output is None else np.dtype(output)
    ref = sndi.generic_gradient_magnitude(img, sndi.sobel, output=out)
    ours = fndi.generic_gradient_magnitude(xp.asarray(img), fndi.sobel, output=out)
    same(ours, ref, xp)


def test_generic_gradient_magnitude_scratch_derivative(xp, rng):
    """A derivative that returns one scratch buffer each time (each result is
    consumed before the next call in scipy's chain)."""
    img = image(rng, SHAPES[3], "float32")

    def make(mod, lib):
        scratch = {}

        def derivative(x, axis, output, mode, cval):
            if not isinstance(output, np.dtype):
                return lib.sobel(x, axis, output, mode, cval)
            buf = scratch.setdefault("buf", mod.empty(x.shape, output))
            lib.sobel(x, axis, buf, mode, cval)
            return buf

        return derivative

    ref = sndi.generic_gradient_magnitude(img, make(np, sndi), output=np.float32)
    ours = fndi.generic_gradient_magnitude(xp.asarray(img), make(xp, fndi), output=np.float32)
    same(ours, ref, xp)


def test_generic_gradient_magnitude_wider_derivative(rng):
    """A derivative returning float64 for a float32 output: scipy's casts."""
    img = image(rng, SHAPES[2], "float32")

    def d(lib):
        return lambda x, axis, output, mode, cval: lib.sobel(x.astype(np.float64), axis, None, mode, cval) \
            if isinstance(output, np.dtype) else lib.sobel(x, axis, output, mode, cval)

    ref = sndi.generic_gradient_magnitude(img, d(sndi), output=np.float32)
    ours = fndi.generic_gradient_magnitude(img, d(fndi), output=np.float32)
    same(ours, ref, np)


def test_torch(rng):
    torch = pytest.importorskip("torch")
    img = image(rng, SHAPES[2], "float32")
    ours = ff.sobel(torch.from_numpy(img))
    assert isinstance(ours, torch.Tensor)
    assert_array_equal(ours.numpy(), skf.sobel(img), strict=True)


def test_fused_path_taken(monkeypatch, rng):
    """The magnitudes really finish in the C op (and integer outputs do not)."""
    calls = []
    real = fovea._fovea.gradient_norm

    def spy(parts, out, *args, **kw):
        calls.append(len(parts))
        return real(parts, out, *args, **kw)

    monkeypatch.setattr(fovea._fovea, "gradient_norm", spy)
    img = image(rng, SHAPES[3], "float32")
    ff.sobel(img)
    ff.farid(img[0])
    fndi.gaussian_gradient_magnitude(img, 1.0)
    assert calls == [3, 2, 3]
    fndi.gaussian_gradient_magnitude(img, 1.0, output=np.int32)
    ff.sobel(img, axis=1)
    assert calls == [3, 2, 3]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nparts", [1, 2, 3])
def test_fused_matches_chain_gpu(cp, rng, dtype, nparts):
    """The fused op on CuPy arrays equals CuPy's own elementwise chain bit for bit."""
    from fovea import _fovea

    parts = [cp.asarray((rng.standard_normal((67, 131)) * 10).astype(dtype)) for _ in range(nparts)]
    div = float(np.sqrt(nparts, dtype=dtype))
    want = parts[0] * parts[0]
    for p in parts[1:]:
        want += p * p
    want = cp.sqrt(want) / np.sqrt(nparts, dtype=dtype)
    out = cp.empty_like(parts[0])
    _fovea.gradient_norm(parts, out, div=div, stream=cp.cuda.get_current_stream().ptr)
    assert_array_equal(cp.asnumpy(out), cp.asnumpy(want), strict=True)
