"""Zero-copy import/export: NumPy (buffer protocol, __array_interface__), DLPack,
CuPy (__cuda_array_interface__), PyTorch; reference counting; the same array
type out; to_device round trips."""

import gc
import subprocess
import sys
import threading

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fovea
from fovea import _fovea
from conftest import DTYPES, layouts, random_array


def ptr(a):
    """Data pointer of a fovea.Array (host or device)."""
    iface = a.__array_interface__ if a.device == "cpu" else a.__cuda_array_interface__
    return iface["data"][0]


class DLPackOnly:
    """Offers only __dlpack__/__dlpack_device__ (forces fovea's DLPack import path)."""

    def __init__(self, arr):
        self.arr = arr
        self.calls = []

    def __dlpack__(self, stream=None, **kw):
        self.calls.append(stream)
        return self.arr.__dlpack__(stream=stream) if stream is not None else self.arr.__dlpack__()

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


class InterfaceOnly:
    """Offers only __array_interface__ (keeps the array it describes alive)."""

    def __init__(self, arr):
        self.arr = arr
        self.__array_interface__ = arr.__array_interface__


# ---- NumPy, buffer protocol -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_import_is_zero_copy(rng, dtype):
    x = random_array(rng, (5, 6), dtype)
    a = fovea.asarray(x)
    assert isinstance(a, fovea.Array)
    assert ptr(a) == x.ctypes.data
    assert a.shape == x.shape and a.strides == x.strides and a.dtype == x.dtype
    assert a.ndim == 2 and a.size == 30 and a.nbytes == x.nbytes and a.device == "cpu"
    y = np.asarray(a)
    assert np.shares_memory(x, y)
    assert y.ctypes.data == x.ctypes.data
    assert_array_equal(y, x)


def test_numpy_round_trip_non_contiguous(rng):
    base = random_array(rng, (6, 8, 4), "float64")
    for name, x in layouts(base) + [("0-d", base[1, 2, 3]), ("size-1 axes", base[:1, ::3, 2:3])]:
        x = np.asarray(x)
        a = fovea.asarray(x)
        assert a.strides == x.strides, name
        assert ptr(a) == x.ctypes.data, name
        y = np.asarray(a)
        assert y.strides == x.strides and y.shape == x.shape, name
        assert_array_equal(y, x, err_msg=name)
        if x.size:
            assert np.shares_memory(x, y), name


def test_writes_through_the_view_reach_the_original(rng):
    x = random_array(rng, (4, 4), "int32")
    y = np.asarray(fovea.asarray(x[::-1, 1:]))
    y[0, 0] = 12345
    assert x[3, 1] == 12345


def test_readonly_numpy_stays_readonly(rng):
    x = random_array(rng, (3, 3), "uint8")
    x.flags.writeable = False
    a = fovea.asarray(x)
    assert a.readonly
    assert a.__array_interface__["data"] == (x.ctypes.data, True)
    assert not np.asarray(a).flags.writeable
    assert "readonly" in repr(a)


def test_other_buffer_exporters():
    b = bytearray(b"\x01\x02\x03")
    a = fovea.asarray(b)
    assert a.dtype == np.uint8 and a.shape == (3,) and not a.readonly
    assert fovea.asarray(b"xyz").readonly
    m = memoryview(np.arange(6, dtype=np.int16)).cast("B").cast("h", (2, 3))
    assert_array_equal(np.asarray(fovea.asarray(m)), np.arange(6, dtype=np.int16).reshape(2, 3))
    import array

    assert_array_equal(np.asarray(fovea.asarray(array.array("d", [1.5, 2.5]))), [1.5, 2.5])


def test_array_interface_only_objects(rng):
    x = random_array(rng, (4, 6), "float32")[:, ::2]
    obj = InterfaceOnly(x)
    before = sys.getrefcount(obj)
    a = fovea.asarray(obj)
    assert sys.getrefcount(obj) == before + 1  # the Array keeps the producer alive
    assert ptr(a) == x.ctypes.data and a.strides == x.strides
    assert_array_equal(np.asarray(a), x)
    del a
    gc.collect()
    assert sys.getrefcount(obj) == before


def test_array_keeps_the_source_alive(rng):
    x = random_array(rng, (100,), "int64")
    expected = x.copy()
    a = fovea.asarray(x)
    p = ptr(a)
    del x
    gc.collect()
    junk = [np.full(100, -1, np.int64) for _ in range(50)]  # would reuse freed memory
    assert ptr(a) == p
    assert_array_equal(np.asarray(a), expected)
    del junk


def test_constructor_and_repr(rng):
    x = random_array(rng, (2, 3), "int8")
    a = fovea.Array(x)
    assert ptr(a) == x.ctypes.data
    assert fovea.Array(a) is a and fovea.asarray(a) is a
    r = repr(a)
    assert "fovea.Array" in r and "(2, 3)" in r and "int8" in r and "cpu" in r
    assert a.__dlpack_device__() == (1, 0)
    assert not hasattr(a, "__cuda_array_interface__")
    assert a.is_contiguous and not fovea.asarray(x.T).is_contiguous


def test_array_interface_fields(rng):
    x = random_array(rng, (3, 4), "uint16")
    ai = fovea.asarray(x).__array_interface__
    assert ai["version"] == 3 and ai["shape"] == (3, 4) and ai["typestr"] == x.dtype.str
    assert ai["strides"] is None and ai["data"] == (x.ctypes.data, False)
    assert fovea.asarray(x.T).__array_interface__["strides"] == x.T.strides
    assert fovea.asarray(np.zeros(2, bool)).__array_interface__["typestr"] == "|b1"


# ---- reference counting ------------------------------------------------------------------


def test_import_does_not_leak_references(rng):
    x = random_array(rng, (10, 10), "float32")
    before = sys.getrefcount(x)
    a = fovea.asarray(x)
    assert sys.getrefcount(x) > before
    assert _fovea._refcount(a) == 1
    del a
    gc.collect()
    assert sys.getrefcount(x) == before
    for _ in range(100):
        fovea.add(x, x)
        fovea.astype(x[::2], "int8")
        np.asarray(fovea.asarray(x.T))
    gc.collect()
    assert sys.getrefcount(x) == before


def test_failed_imports_do_not_leak():
    x = np.zeros(4, dtype=np.complex64)
    before = sys.getrefcount(x)
    for _ in range(10):
        with pytest.raises(TypeError):
            fovea.asarray(x)
    assert sys.getrefcount(x) == before


def test_dlpack_export_holds_a_reference(rng):
    x = random_array(rng, (4, 5), "int16")
    a = fovea.asarray(x)
    y = np.from_dlpack(a)
    assert _fovea._refcount(a) == 2
    assert y.ctypes.data == x.ctypes.data
    del y
    gc.collect()
    assert _fovea._refcount(a) == 1
    cap = a.__dlpack__()  # never consumed: the capsule's destructor drops the reference
    assert _fovea._refcount(a) == 2
    del cap
    assert _fovea._refcount(a) == 1


def test_last_reference_dropped_on_another_thread(rng):
    x = random_array(rng, (8,), "uint32")
    before = sys.getrefcount(x)
    box = [fovea.asarray(x)]
    t = threading.Thread(target=box.clear)
    t.start()
    t.join()
    gc.collect()
    assert sys.getrefcount(x) == before


# ---- DLPack ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_from_dlpack_of_fovea(rng, dtype):
    x = random_array(rng, (3, 7), dtype)[:, ::-2]
    a = fovea.asarray(x)
    y = np.from_dlpack(a)
    assert y.dtype == x.dtype and y.shape == x.shape and y.strides == x.strides
    assert y.ctypes.data == x.ctypes.data
    assert_array_equal(y, x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fovea_from_dlpack_producer(rng, dtype):
    x = random_array(rng, (5, 4), dtype).T
    before = sys.getrefcount(x)
    prod = DLPackOnly(x)
    a = fovea.asarray(prod)
    assert prod.calls == [None]  # CPU producer: no stream
    assert ptr(a) == x.ctypes.data and a.strides == x.strides and a.dtype == x.dtype
    assert_array_equal(np.asarray(a), x)
    del a, prod
    gc.collect()
    assert sys.getrefcount(x) == before


def test_fovea_from_capsule(rng):
    x = random_array(rng, (6,), "float64")
    cap = x.__dlpack__()
    a = fovea.asarray(cap)
    assert ptr(a) == x.ctypes.data
    assert_array_equal(np.asarray(a), x)
    with pytest.raises(ValueError, match="already consumed"):
        fovea.asarray(cap)


def test_dlpack_round_trip_through_fovea(rng):
    x = random_array(rng, (2, 3, 4), "int64")
    y = np.from_dlpack(fovea.asarray(DLPackOnly(x)))
    assert np.shares_memory(x, y)
    assert_array_equal(y, x)


def test_dlpack_copy_and_device_arguments(rng):
    x = random_array(rng, (3, 3), "float32")
    a = fovea.asarray(x)
    y = np.from_dlpack(a, copy=True)
    assert not np.shares_memory(x, y)
    assert_array_equal(y, x)
    y = np.from_dlpack(a, device="cpu")
    assert np.shares_memory(x, y)
    z = np.from_dlpack(fovea.asarray(x.T))
    assert z.strides == x.T.strides


# ---- the same array type out -----------------------------------------------------------------


def test_same_array_type_out_numpy(rng):
    x = random_array(rng, (3, 4), "uint8")
    for got in (fovea.astype(x, "float32"), fovea.add(x, x), fovea.multiply(x, x[0]),
                fovea.to_device(x, "cpu"), fovea.copy(x)):
        assert type(got) is np.ndarray
    assert fovea.to_device(x, "cpu") is x
    c = fovea.copy(x[:, ::-1])
    assert c.flags.c_contiguous and not np.shares_memory(c, x)
    assert_array_equal(c, x[:, ::-1])


def test_same_array_type_out_other_dlpack_producers(rng):
    x = random_array(rng, (3,), "int32")
    got = fovea.add(DLPackOnly(x), x)
    assert isinstance(got, fovea.Array)  # no from_dlpack in the producer's module
    assert_array_equal(np.asarray(got), x + x)


def test_to_device_cpu_for_fovea_array(rng):
    x = random_array(rng, (2, 2), "float64")
    a = fovea.asarray(x)
    assert fovea.to_device(a, "cpu") is a
    b = _fovea.to_device(a, "cpu")
    assert ptr(b) == ptr(a)
    c = _fovea.copy(a)
    assert ptr(c) != ptr(a) and c.device == "cpu"
    assert_array_equal(np.asarray(c), x)


# ---- command line -------------------------------------------------------------------------


def test_cli_main_in_process(capfd):
    assert _fovea.cli_main(["fovea", "--version"]) == 0
    out = capfd.readouterr().out
    assert fovea.__version__ in out
    assert _fovea.cli_main(["fovea", "no-such-command"]) == 2
    assert "unknown command" in capfd.readouterr().err


def test_python_dash_m_fovea():
    env_path = [p for p in sys.path if p]
    import os

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(env_path))
    r = subprocess.run([sys.executable, "-m", "fovea", "info", "--json"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '"backends"' in r.stdout
    r = subprocess.run([sys.executable, "-m", "fovea", "bogus"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 2


def test_module_surface():
    assert fovea.__version__ == _fovea.version() == _fovea.__version__
    assert fovea.num_threads() >= 1
    cfg = fovea.config()
    assert "cpu" in cfg["backends"]
    assert isinstance(fovea.gpu_available(), bool)
    assert fovea.gpu_available() == ("cuda" in cfg["backends"])


# ---- CuPy ------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_cai_zero_copy(cp, rng, dtype):
    x = cp.asarray(random_array(rng, (5, 6), dtype))
    for view in (x, x[::2, ::-1], x.T):
        a = fovea.asarray(view)
        assert a.device == "cuda:%d" % x.device.id
        assert ptr(a) == view.data.ptr
        assert a.strides == view.strides and a.shape == view.shape and a.dtype == view.dtype
        back = cp.asarray(a)
        assert back.data.ptr == view.data.ptr
        assert_array_equal(cp.asnumpy(back), cp.asnumpy(view))
    with pytest.raises(AttributeError):
        fovea.asarray(x).__array_interface__


@pytest.mark.gpu
def test_cupy_dlpack_both_ways(cp, rng):
    x = cp.asarray(random_array(rng, (4, 5), "float32"))
    a = fovea.asarray(DLPackOnly(x))
    assert ptr(a) == x.data.ptr
    y = cp.from_dlpack(a)
    assert y.data.ptr == x.data.ptr
    assert_array_equal(cp.asnumpy(y), cp.asnumpy(x))
    assert a.__dlpack_device__() == (2, x.device.id)


@pytest.mark.gpu
def test_cupy_to_device_round_trip(cp, rng):
    x = random_array(rng, (7, 3), "int16")
    d = fovea.to_device(x, "cuda")
    assert isinstance(d, cp.ndarray)
    assert_array_equal(cp.asnumpy(d), x)
    h = fovea.to_device(d[::-1], "cpu")
    assert type(h) is np.ndarray
    assert_array_equal(h, x[::-1])
    assert fovea.to_device(d, "cuda") is d
    a = fovea.to_device(fovea.asarray(x), "cuda:0")
    assert isinstance(a, fovea.Array) and a.device == "cuda:0"
    assert_array_equal(np.asarray(fovea.to_device(a, "cpu")), x)


@pytest.mark.gpu
def test_cupy_device_mismatch(cp, rng):
    x = random_array(rng, (3,), "float32")
    with pytest.raises(fovea.DeviceError, match="different devices"):
        fovea.add(x, cp.asarray(x))
    with pytest.raises(fovea.DeviceError):
        fovea.multiply(cp.asarray(x), x)


@pytest.mark.gpu
def test_cupy_refcounts(cp, rng):
    x = cp.asarray(random_array(rng, (16,), "uint8"))
    before = sys.getrefcount(x)
    a = fovea.asarray(x)
    del a
    gc.collect()
    assert sys.getrefcount(x) == before
    fovea.add(x, x)
    gc.collect()
    assert sys.getrefcount(x) == before


# ---- PyTorch -----------------------------------------------------------------------------------


def test_torch_cpu_tensors(torch, rng):
    x = torch.from_numpy(random_array(rng, (4, 5), "float32"))
    got = fovea.add(x, x)
    assert isinstance(got, torch.Tensor) and got.device.type == "cpu"
    assert_array_equal(got.numpy(), (x + x).numpy())
    got = fovea.astype(x.T, torch.int32)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int32
    assert_array_equal(got.numpy(), x.T.numpy().astype(np.int32))
    a = fovea.asarray(x)
    assert ptr(a) == x.data_ptr()
    t = torch.from_dlpack(a)
    assert t.data_ptr() == x.data_ptr()


@pytest.mark.gpu
def test_torch_cuda_tensors(torch_cuda, rng):
    torch = torch_cuda
    x = torch.from_numpy(random_array(rng, (4, 5), "int32")).cuda()
    a = fovea.asarray(x)
    assert ptr(a) == x.data_ptr()
    got = fovea.multiply(x, x[:, ::1])
    assert isinstance(got, torch.Tensor) and got.is_cuda
    assert torch.equal(got, x * x)
    got = fovea.astype(x.t(), "float64")
    assert got.dtype == torch.float64 and torch.equal(got, x.t().double())
    t = torch.from_dlpack(a)
    assert t.data_ptr() == x.data_ptr()


@pytest.mark.gpu
def test_torch_to_device_round_trip(torch_cuda, rng):
    torch = torch_cuda
    x = torch.from_numpy(random_array(rng, (3, 6), "float64"))
    d = fovea.to_device(x, "cuda")
    assert isinstance(d, torch.Tensor) and d.is_cuda
    h = fovea.to_device(d, "cpu")
    assert isinstance(h, torch.Tensor) and h.device.type == "cpu"
    assert torch.equal(h, x)


# ---- CUDA metadata paths that run without a GPU (no device memory is touched) ----------------


class FakeCuda:
    """A __cuda_array_interface__ v3 producer whose 'device pointer' is host memory; fovea
    only records it, so the metadata paths can be checked on any machine."""

    def __init__(self, arr, stream=None, version=3):
        self.arr = arr
        d = {"version": version, "shape": arr.shape, "typestr": arr.dtype.str,
             "data": (arr.ctypes.data, not arr.flags.writeable),
             "strides": None if arr.flags.c_contiguous else arr.strides}
        if version >= 3:
            d["stream"] = stream
        self.__cuda_array_interface__ = d


@pytest.mark.parametrize("stream,exported", [(None, None), (1, 1), (2, 2), (0x7F00, 0x7F00)])
def test_cuda_array_interface_import_and_export_metadata(rng, stream, exported):
    x = random_array(rng, (4, 6), "int16")[:, ::2]
    a = fovea.asarray(FakeCuda(x, stream))
    assert a.device == "cuda:0"
    assert a.__dlpack_device__() == (2, 0)
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["data"] == (x.ctypes.data, False)
    assert cai["shape"] == x.shape and cai["strides"] == x.strides and cai["typestr"] == "<i2"
    assert cai["stream"] == exported
    with pytest.raises(AttributeError, match="host arrays"):
        a.__array_interface__
    assert not hasattr(a, "__array_interface__")
    assert "cuda:0" in repr(a)


def test_cuda_array_keeps_producer_alive(rng):
    x = random_array(rng, (5,), "float32")
    prod = FakeCuda(x, 1)
    before = sys.getrefcount(prod)
    a = fovea.asarray(prod)
    assert sys.getrefcount(prod) == before + 1
    del a
    gc.collect()
    assert sys.getrefcount(prod) == before


def test_cuda_and_host_inputs_are_a_device_error(rng):
    x = random_array(rng, (3,), "float32")
    with pytest.raises(fovea.DeviceError, match="different devices"):
        fovea.add(x, FakeCuda(x, 1))
    with pytest.raises(fovea.DeviceError, match="different devices"):
        fovea.multiply(FakeCuda(x), x)


@pytest.mark.skipif(fovea.gpu_available(), reason="needs a machine without a usable GPU")
def test_cuda_inputs_without_gpu_raise_device_error(rng):
    x = random_array(rng, (3,), "float32")
    d = FakeCuda(x, 1)
    for call in (lambda: fovea.add(d, d), lambda: fovea.astype(d, "int8"), lambda: fovea.to_device(d, "cpu"),
                 lambda: fovea.asarray(d).__dlpack__()):
        with pytest.raises(fovea.DeviceError, match="not available"):
            call()


# ---- one set of rules for every public function (fovea._interop) ------------------------------
#
# Each input kind goes through fovea.add, fovea.ndimage and fovea.skimage and must come back as
# the type the table in fovea/_interop.py names, with NumPy's / scipy's values.

import types

from fovea import _interop
from fovea import ndimage as ndi
from fovea.skimage import filters as skf
from fovea.skimage import morphology as skm

_fakexp = types.ModuleType("fakexp")
_fakexp.from_dlpack = np.from_dlpack
sys.modules.setdefault("fakexp", _fakexp)


class FakeXpArray(DLPackOnly):
    """A DLPack producer whose top-level module ("fakexp") has from_dlpack."""


FakeXpArray.__module__ = "fakexp"


class Subclass(np.ndarray):
    pass


def _kinds(torch_mod=None):
    """(name, make(ndarray) -> input, expected result type) for every host input kind."""
    out = [
        ("numpy", lambda a: a, np.ndarray),
        ("numpy subclass", lambda a: a.view(Subclass), np.ndarray),
        ("fovea", fovea.asarray, fovea.Array),
        ("dlpack", DLPackOnly, fovea.Array),
        ("dlpack with from_dlpack", FakeXpArray, np.ndarray),
        ("array interface", InterfaceOnly, np.ndarray),
        ("list", lambda a: a.tolist(), np.ndarray),
    ]
    if torch_mod is not None:
        out.append(("torch", lambda a: torch_mod.from_numpy(np.ascontiguousarray(a)), torch_mod.Tensor))
        out.append(("torch grad", lambda a: torch_mod.from_numpy(np.ascontiguousarray(a)).requires_grad_(),
                    torch_mod.Tensor))
    return out


def _np_of(r):
    if type(r).__module__.startswith("torch"):
        return r.detach().numpy()
    return np.asarray(r)


def _ops():
    """(name, fovea call, reference call) on a float32 image."""
    from scipy import ndimage as sn
    from skimage import filters as rf, morphology as rm

    return [
        ("add", lambda x: fovea.add(x, 1.5), lambda a: a + np.float32(1.5)),
        ("astype", lambda x: fovea.astype(x, "float64"), lambda a: a.astype(np.float64)),
        ("ndimage", lambda x: ndi.uniform_filter(x, 3), lambda a: sn.uniform_filter(a, 3)),
        ("ndimage composition", lambda x: ndi.gaussian_gradient_magnitude(x, 1.0),
         lambda a: sn.gaussian_gradient_magnitude(a, 1.0)),
        ("skimage", lambda x: skf.sobel(x), lambda a: rf.sobel(a)),
        ("skimage morphology", lambda x: skm.erosion(x), lambda a: rm.erosion(a)),
    ]


def _torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    return torch


@pytest.mark.parametrize("op", range(6), ids=["add", "astype", "ndimage", "composition", "skimage", "morph"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative"])
def test_each_input_kind_gives_its_result_type(rng, op, layout):
    name, fn, ref = _ops()[op]
    base = random_array(rng, (9, 8), "float32")
    a = {"contiguous": base, "transposed": base.T, "negative": base[::-1, ::-2]}[layout]
    want = ref(np.ascontiguousarray(a))
    for kname, make, rtype in _kinds(_torch_or_none()):
        got = fn(make(a))
        assert isinstance(got, rtype), (kname, type(got))
        if rtype is np.ndarray:
            assert type(got) is np.ndarray, kname   # subclasses come back as the base class
        np.testing.assert_allclose(_np_of(got), want, rtol=2e-6, atol=1e-5, err_msg=kname)


def test_kind_classification():
    x = np.zeros(3, np.float32)
    assert _interop.kind(x) == "numpy" and _interop.kind(np.float32(1)) == "numpy"
    assert _interop.kind(x.view(Subclass)) == "numpy"
    assert _interop.kind(fovea.asarray(x)) == "fovea"
    assert _interop.kind(DLPackOnly(x)) == "dlpack"
    assert _interop.kind(FakeCuda(x)) == "cuda"
    assert _interop.kind(InterfaceOnly(x)) == "other" and _interop.kind(bytearray(b"ab")) == "other"
    assert [_interop.kind(v) for v in (1, 2.5, True, 1j)] == ["scalar"] * 4
    assert _interop.kind([1, 2]) == "list" and _interop.kind((1, 2)) == "list"
    assert _interop.is_array(x) and _interop.is_array(InterfaceOnly(x)) and _interop.is_array(FakeCuda(x))
    for not_array in (None, "float32", np.float32, np.dtype("f4"), 3, [1.0]):
        assert not _interop.is_array(not_array), not_array


def test_scalars_lists_and_zero_d(rng):
    u8 = random_array(rng, (4,), "uint8")
    assert fovea.add(u8, 1).dtype == np.uint8            # NEP 50: the scalar takes the array's kind
    assert fovea.add(1, u8).dtype == np.uint8 and type(fovea.add(1, u8)) is np.ndarray
    assert fovea.add(u8, 1.5).dtype == np.float64
    assert fovea.add(u8, np.int64(1)).dtype == np.int64  # NumPy scalars are not weak
    got = fovea.add(2, 3)
    assert type(got) is np.ndarray and got.shape == () and got == 5
    assert_array_equal(fovea.add([1, 2, 3], (4, 5, 6)), [5, 7, 9])
    assert_array_equal(fovea.multiply([[1, 2]], [[3], [4]]), [[3, 6], [4, 8]])
    from scipy import ndimage as sn

    for x in (np.array(2.5), np.float32(2.5), 2.5, [[1.0, 2.0], [3.0, 4.0]], (1, 5, 2)):
        got = ndi.uniform_filter(x, 3)
        assert type(got) is np.ndarray
        assert_array_equal(got, sn.uniform_filter(x, 3))
    assert_array_equal(skf.sobel([[0.0, 1.0], [2.0, 3.0]]), __import__("skimage").filters.sobel(
        np.array([[0.0, 1.0], [2.0, 3.0]])))


def test_byte_swapped_input_is_worked_on_natively(rng):
    from skimage import filters as rf

    x = random_array(rng, (7, 6), "float32")
    sw = x.astype(">f4")
    np.testing.assert_allclose(skf.sobel(sw), rf.sobel(x), rtol=1e-6, atol=1e-6)
    assert_array_equal(skm.dilation(sw), skm.dilation(x))
    assert_array_equal(ndi.uniform_filter(sw, 3), ndi.uniform_filter(x, 3))
    assert_array_equal(fovea.add(sw, 1), x + np.float32(1))
    assert_array_equal(fovea.astype(sw, "int16"), x.astype(np.int16))
    with pytest.raises(TypeError, match="byte-swapped"):
        fovea.asarray(sw)   # a view is what was asked for: no silent copy


# ---- out= / output= -------------------------------------------------------------------------------


def _out_cases():
    """(name, call(image, out), result for out=None) for functions taking an output array."""
    return [
        ("ndimage", lambda x, o: ndi.uniform_filter(x, 3, output=o), lambda x: ndi.uniform_filter(x, 3)),
        ("skimage gaussian", lambda x, o: skf.gaussian(x, 1.0, out=o), lambda x: skf.gaussian(x, 1.0)),
        ("skimage erosion", lambda x, o: skm.erosion(x, out=o), lambda x: skm.erosion(x)),
        ("skimage median", lambda x, o: skf.median(x, out=o), lambda x: skf.median(x)),
    ]


@pytest.mark.parametrize("case", range(4), ids=["ndimage", "gaussian", "erosion", "median"])
def test_out_right_array_is_written_and_returned(rng, case):
    _, call, plain = _out_cases()[case]
    x = random_array(rng, (6, 7), "float32")
    want = plain(x)
    for make in (lambda o: o, lambda o: fovea.asarray(o)):
        buf = np.zeros((6, 7), np.float32)
        out = make(buf)
        assert call(x, out) is out
        np.testing.assert_allclose(buf, want, rtol=1e-6)
    # a strided view as out
    big = np.zeros((12, 7), np.float32)
    assert call(x, big[::2]) is not None
    np.testing.assert_allclose(big[::2], want, rtol=1e-6)
    assert not big[1::2].any()


@pytest.mark.parametrize("case", range(4), ids=["ndimage", "gaussian", "erosion", "median"])
def test_out_wrong_shape_read_only_or_device(rng, case, monkeypatch):
    monkeypatch.setattr(_interop, "cupy", lambda: None)   # FakeCuda is metadata only: keep CuPy off it
    _, call, _ = _out_cases()[case]
    x = random_array(rng, (6, 7), "float32")
    with pytest.raises((RuntimeError, ValueError), match="shape"):
        call(x, np.zeros((7, 6), np.float32))
    ro = np.zeros((6, 7), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        call(x, ro)
    with pytest.raises(ValueError, match="read-only"):
        call(x, fovea.asarray(ro))
    dev = FakeCuda(np.zeros((6, 7), np.float32), 1)   # metadata only: never written
    with pytest.raises(fovea.DeviceError, match="cuda:0.*host memory"):
        call(x, dev)


def test_out_other_dtype_converts_as_scipy(rng):
    from scipy import ndimage as sn

    x = random_array(rng, (6, 7), "float32")
    for dt in ("float64", "int32", "uint8"):
        out = np.zeros((6, 7), dt)
        assert ndi.uniform_filter(x * 10, 3, output=out) is out
        assert_array_equal(out, sn.uniform_filter(x * 10, 3, output=np.dtype(dt)))
    with pytest.raises(TypeError, match="out dtype must be bool"):
        skm.remove_small_holes(x > 0, max_size=2, out=np.zeros((6, 7), np.uint8))


def test_second_array_on_another_device_is_a_device_error(rng, monkeypatch):
    monkeypatch.setattr(_interop, "cupy", lambda: None)   # FakeCuda is metadata only: keep CuPy off it
    x = random_array(rng, (6, 7), "float32")
    d = FakeCuda(np.ones((6, 7), bool), 1)
    with pytest.raises(fovea.DeviceError, match="`mask` is on cuda:0 but the input is in host memory"):
        skf.sobel(x, mask=d)
    with pytest.raises(fovea.DeviceError, match="mask is on cuda:0"):
        ndi.binary_erosion(x > 0, mask=d)
    from fovea.skimage import segmentation as sks

    with pytest.raises(fovea.DeviceError, match="`markers`"):
        sks.watershed(x, FakeCuda(np.ones((6, 7), np.int32), 1))


def test_gpu_input_without_cupy_names_the_need(rng, monkeypatch):
    """Element-wise steps on GPU data need CuPy: ImportError naming the function; no device
    memory is touched (FakeCuda), so this runs anywhere."""
    monkeypatch.setattr(_interop, "cupy", lambda: None)
    d = FakeCuda(random_array(rng, (6, 7), "float32"), 1)
    with pytest.raises(ImportError, match="cupy"):
        skf.sobel(d)
    with pytest.raises(ImportError, match="cupy"):
        skm.erosion(d)


def test_unusable_inputs_raise_clear_errors():
    for bad in (object(), "abc", {"a": 1}):
        with pytest.raises(TypeError, match="cannot import an object"):
            fovea.add(bad, 1)
        with pytest.raises(TypeError, match="cannot import an object"):
            fovea.astype(bad, "int8")
    with pytest.raises(TypeError):
        fovea.add(np.zeros(3, np.complex64), 1)
    with pytest.raises(RuntimeError, match="not supported"):
        ndi.uniform_filter(np.zeros(3, np.float16), 3, output=np.zeros(3, np.float16))
    with pytest.raises(ValueError):
        skf.sobel(np.array([object()]))


def test_host_parameter_arrays():
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    for v in (x, fovea.asarray(x), DLPackOnly(x), InterfaceOnly(x), x.tolist()):
        got = _interop.host(v)
        assert type(got) is np.ndarray
        assert_array_equal(got, x)
    assert _interop.host(None) is None
    assert _interop.host([1, 0], dtype=bool).dtype == bool


def test_torch_cpu_rules(torch, rng, monkeypatch):
    from scipy import ndimage as sn

    x = random_array(rng, (6, 7), "float32")
    t = torch.from_numpy(x).requires_grad_()
    got = ndi.uniform_filter(t, 3)
    assert isinstance(got, torch.Tensor) and not got.requires_grad
    np.testing.assert_allclose(got.numpy(), sn.uniform_filter(x, 3), rtol=1e-6)
    out = torch.zeros((6, 7), dtype=torch.float64)
    assert ndi.uniform_filter(t, 3, output=out) is out
    assert skf.gaussian(t, 1.0, out=torch.zeros((6, 7), dtype=torch.float64)) is not None
    with pytest.raises(RuntimeError, match="shape"):
        ndi.uniform_filter(t, 3, output=torch.zeros((7, 6)))
    assert isinstance(fovea.add(t, 1), torch.Tensor)
    assert isinstance(fovea.asarray(t), fovea.Array)
    # results with negative strides come back as tensors (torch has none: a copy)
    r = _interop.prepare(t)[2](x[::-1])
    assert isinstance(r, torch.Tensor)
    assert_array_equal(r.numpy(), x[::-1])
    monkeypatch.setattr(_interop, "cupy", lambda: None)   # FakeCuda is metadata only
    with pytest.raises(fovea.DeviceError):
        skf.sobel(t, mask=fovea.asarray(FakeCuda(np.zeros((6, 7), bool), 1)))


# ---- GPU: the same rules with CuPy and torch CUDA --------------------------------------------------


@pytest.mark.gpu
def test_gpu_input_kinds_give_their_result_types(cp, rng):
    from scipy import ndimage as sn

    x = random_array(rng, (9, 8), "float32")
    d = cp.asarray(x)

    class CaiOnly:
        def __init__(self, a):
            self.a = a
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    kinds = [("cupy", d, cp.ndarray), ("cupy negative", d[::-1], cp.ndarray),
             ("fovea", fovea.asarray(d), fovea.Array), ("dlpack", DLPackOnly(d), fovea.Array),
             ("cuda array interface", CaiOnly(d), cp.ndarray)]
    for name, v, rtype in kinds:
        src = x[::-1] if "negative" in name else x
        for fn, ref in ((lambda a: ndi.uniform_filter(a, 3), lambda a: sn.uniform_filter(a, 3)),
                        (lambda a: ndi.gaussian_gradient_magnitude(a, 1.0),
                         lambda a: sn.gaussian_gradient_magnitude(a, 1.0)),
                        (lambda a: skf.sobel(a), lambda a: __import__("skimage").filters.sobel(a)),
                        (lambda a: skm.erosion(a), lambda a: __import__("skimage").morphology.erosion(a)),
                        (lambda a: fovea.add(a, 1.5), lambda a: a + np.float32(1.5))):
            got = fn(v)
            assert isinstance(got, rtype), (name, type(got))
            host = cp.asnumpy(cp.asarray(got)) if not isinstance(got, cp.ndarray) else cp.asnumpy(got)
            np.testing.assert_allclose(host, ref(np.ascontiguousarray(src)), rtol=1e-5, atol=1e-5,
                                       err_msg=name)


@pytest.mark.gpu
def test_gpu_out_and_device_errors(cp, rng):
    x = random_array(rng, (6, 7), "float32")
    d = cp.asarray(x)
    for call in (lambda o: ndi.uniform_filter(d, 3, output=o), lambda o: skf.gaussian(d, 1.0, out=o),
                 lambda o: skm.erosion(d, out=o)):
        out = cp.zeros((6, 7), cp.float32)
        assert call(out) is out
        with pytest.raises(fovea.DeviceError, match="host memory"):
            call(np.zeros((6, 7), np.float32))
        with pytest.raises((RuntimeError, ValueError), match="shape"):
            call(cp.zeros((7, 6), cp.float32))
    with pytest.raises(fovea.DeviceError, match="`mask`"):
        skf.sobel(d, mask=np.ones((6, 7), bool))
    with pytest.raises(fovea.DeviceError):
        skf.sobel(x, mask=cp.ones((6, 7), bool))
    with pytest.raises(fovea.DeviceError):
        ndi.binary_erosion(d > 0, mask=np.ones((6, 7), bool))


@pytest.mark.gpu
def test_torch_cuda_rules_and_streams(cp, torch_cuda, rng):
    """torch CUDA tensors give torch CUDA tensors (detached); ndimage's CuPy steps and
    fovea.add run on torch's current stream (a side stream here)."""
    torch = torch_cuda
    from scipy import ndimage as sn
    from skimage import filters as rf

    x = random_array(rng, (64, 80), "float32")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_numpy(x).cuda().requires_grad_()
        gm = ndi.gaussian_gradient_magnitude(t, 1.0)
        added = fovea.add(t, 1.0)
    s.synchronize()
    np.testing.assert_allclose(gm.cpu().numpy(), sn.gaussian_gradient_magnitude(x, 1.0), rtol=1e-5, atol=1e-5)
    assert_array_equal(added.cpu().numpy(), x + np.float32(1.0))
    got = skf.sobel(t)
    er = skm.erosion(t)
    for r in (got, gm, er, added):
        assert isinstance(r, torch.Tensor) and r.is_cuda and not r.requires_grad
    np.testing.assert_allclose(got.cpu().numpy(), rf.sobel(x), rtol=1e-5, atol=1e-6)
    assert_array_equal(er.cpu().numpy(), __import__("skimage").morphology.erosion(x))
    out = torch.zeros((64, 80), device="cuda")
    assert skf.gaussian(t, 1.0, out=out) is out
    with pytest.raises(fovea.DeviceError):
        skf.gaussian(t, 1.0, out=torch.zeros((64, 80)))
