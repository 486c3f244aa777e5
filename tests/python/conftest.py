"""Shared fixtures and helpers for the fovea Python tests.

GPU tests carry the ``gpu`` marker and take the ``cp`` (CuPy) or ``torch_cuda``
fixture: they run where fovea sees a GPU and CuPy / PyTorch import, and are
skipped (with the reason) elsewhere.
"""

import zlib

import numpy as np
import pytest

import fovea

DTYPES = [
    "bool",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "int32",
    "int64",
    "float32",
    "float64",
]
INT_DTYPES = [d for d in DTYPES if d[0] in "ui"]
FLOAT_DTYPES = ["float32", "float64"]


def pytest_addoption(parser):
    parser.addoption("--ops-matrix-full", action="store_true", default=False,
                     help="test_ops_matrix.py: the whole op x dtype x mode x shape x layout grid "
                          "(default: a fixed, seeded sample of it)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU visible to fovea (and CuPy or PyTorch)")
    config.addinivalue_line("markers", "cucim_dtypes: runs with fovea.skimage's own dtype rule for CuPy "
                                       "data (cuCIM's), not under the skimage_dtypes switch")


def _gpu_reason():
    if fovea.gpu_available():
        return None
    return "no usable GPU: " + fovea.config()["cuda"]["reason"]


def pytest_collection_modifyitems(config, items):
    reason = _gpu_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng(request):
    # a fixed seed per test, so failures reproduce
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(autouse=True)
def _skimage_dtypes(request):
    """fovea.skimage's CuPy results follow cuCIM's dtype rules (float32 for 8- and 16-bit
    integer input where scikit-image gives float64; docs/skimage.md, "Result dtypes").
    The tests compare the CUDA paths with scikit-image's own results, dtypes and bits,
    so they run under the internal switch that keeps scikit-image's rules for CuPy
    data; tests marked cucim_dtypes (test_dtype_rules.py) check the rule itself."""
    if request.node.get_closest_marker("cucim_dtypes"):
        yield
        return
    from fovea import _interop

    with _interop.switched("skimage_dtypes"):
        yield


@pytest.fixture
def cp():
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    return pytest.importorskip("cupy")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def torch_cuda(torch):
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def random_array(rng, shape, dtype, lo=None, hi=None):
    """Random values of dtype over its whole range (ints) or a wide spread (floats),
    never all zeros. lo/hi bound the values (floats: uniform in [lo, hi))."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        a = np.asarray(rng.random(shape) < 0.5)
        if a.size:
            a.flat[0] = True
        return a
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = info.min if lo is None else max(lo, info.min)
        hi = info.max if hi is None else min(hi, info.max)
        a = np.asarray(rng.integers(lo, hi, size=shape, dtype=dt, endpoint=True))
        if a.size and not a.any():
            a.flat[0] = 1
        return a
    if lo is not None or hi is not None:
        return np.asarray(rng.uniform(lo, hi, size=shape)).astype(dt)
    a = np.asarray(rng.standard_normal(shape) * 1000.0)
    a[np.abs(a) < 1e-3] = 0.5
    return a.astype(dt)


def layouts(base):
    """(name, view) pairs of base: contiguous, stepped slices, transposed, reversed."""
    out = [("contiguous", base)]
    if base.ndim >= 1:
        steps = tuple(slice(None, None, 2 if i % 2 == 0 else 1) for i in range(base.ndim))
        out.append(("stepped", base[steps]))
        out.append(("negative", base[::-1]))
    if base.ndim >= 2:
        out.append(("transposed", base.T))
        out.append(("mixed", base.T[::-1, ..., ::2]))
    return out


SHAPES_ND = {1: (11,), 2: (6, 7), 3: (4, 5, 6), 4: (3, 4, 2, 5)}
