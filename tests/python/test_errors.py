"""Every rejected input raises the documented exception type with a message that
says what is wrong, and nothing crashes or leaks."""

import sys

import numpy as np
import pytest

import fovea
from fovea import _fovea


class Interface:
    """An object with a hand-made __array_interface__ or __cuda_array_interface__."""

    def __init__(self, cuda=False, **iface):
        d = {"version": 3, "typestr": "<f4", "shape": (3,), "data": (0, False), "strides": None}
        d.update(iface)
        setattr(self, "__cuda_array_interface__" if cuda else "__array_interface__", d)


class BadDLPack:
    def __init__(self, ret):
        self.ret = ret

    def __dlpack__(self, stream=None):
        return self.ret

    def __dlpack_device__(self):
        return (1, 0)


# ---- exception types -------------------------------------------------------------------------


def test_exception_hierarchy():
    assert issubclass(fovea.FormatError, ValueError)
    assert issubclass(fovea.DeviceError, RuntimeError)
    assert issubclass(fovea.CudaError, RuntimeError)
    assert fovea.FormatError.__module__ == "fovea"


# ---- unsupported dtypes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype,name",
    [
        ("complex64", "complex64"),
        ("complex128", "complex128"),
        ("float16", "float16"),
        ("longdouble", "longdouble"),
        ("object", "object"),
        ("S4", "bytes"),
        ("U3", "str"),
        ("i4,f4", "structured"),
        ("V8", "void"),
        ("datetime64[ns]", "datetime64"),
        ("timedelta64[s]", "timedelta64"),
    ],
)
def test_unsupported_dtype_is_a_type_error_naming_it(dtype, name):
    x = np.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match=name) as e:
        fovea.asarray(x)
    assert "fovea supports" in str(e.value)
    with pytest.raises(TypeError, match=name):
        fovea.add(x, x)
    with pytest.raises(TypeError, match=name):
        fovea.astype(x, "float32")


@pytest.mark.parametrize("dtype", ["complex64", "float16", "object"])
def test_unsupported_target_dtype(dtype):
    with pytest.raises(TypeError, match=dtype):
        fovea.astype(np.ones(3, np.float32), dtype)
    with pytest.raises(TypeError, match=dtype):
        fovea.add(np.ones(3), np.ones(3), dtype=dtype)


def test_unknown_dtype_name():
    with pytest.raises(TypeError):
        fovea.astype(np.ones(3), "not-a-dtype")
    with pytest.raises(TypeError):
        fovea.empty(3, "float17")


def test_unsupported_dtypes_through_dlpack():
    with pytest.raises(TypeError, match="complex128"):
        fovea.asarray(np.ones(2, np.complex128).__dlpack__())
    with pytest.raises(TypeError, match="float16"):
        fovea.asarray(np.ones(2, np.float16).__dlpack__())


@pytest.mark.parametrize("typestr,match", [("<c8", "complex64"), ("|O", "object"), ("<f2", "float16"),
                                           ("|V4", "void"), ("<U2", "str"), ("<M8[D]", "datetime64")])
def test_unsupported_typestr_via_interface(typestr, match):
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match=match):
        fovea.asarray(Interface(typestr=typestr, data=(x.ctypes.data, False)))


# ---- shapes, strides, byte order ---------------------------------------------------------------


def test_more_than_8_dimensions():
    x = np.ones((1,) * 9, np.float32)
    with pytest.raises(ValueError, match="9 dimensions exceed fovea's maximum of 8"):
        fovea.asarray(x)
    with pytest.raises(ValueError, match="9"):
        fovea.empty((1,) * 9)
    with pytest.raises(ValueError, match="9"):
        fovea.asarray(Interface(shape=(1,) * 9, data=(x.ctypes.data, False)))
    assert fovea.asarray(np.ones((1,) * 8)).ndim == 8


def test_strides_not_a_multiple_of_the_itemsize():
    buf = np.zeros(64, np.uint8)
    x = np.ndarray(shape=(3,), dtype=np.int32, buffer=buf, offset=0, strides=(5,))
    before = sys.getrefcount(buf)
    with pytest.raises(ValueError, match="not a multiple of the item size"):
        fovea.asarray(x)
    with pytest.raises(ValueError, match="multiple"):
        fovea.add(x, x)
    with pytest.raises(ValueError, match="multiple"):
        fovea.asarray(Interface(strides=(6,), data=(buf.ctypes.data, False)))
    assert sys.getrefcount(buf) == before


def test_misaligned_data():
    buf = np.zeros(64, np.uint8)
    x = np.ndarray(shape=(3,), dtype=np.int32, buffer=buf, offset=1)
    with pytest.raises(ValueError, match="aligned"):
        fovea.asarray(x)


@pytest.mark.parametrize("dtype", [">i2", ">u4", ">f4", ">f8", ">i8"])
def test_byte_swapped_data(dtype):
    x = np.arange(4, dtype=dtype)
    with pytest.raises(TypeError, match="byte-swapped"):
        fovea.asarray(x)
    with pytest.raises(TypeError, match="byte-swapped"):
        fovea.asarray(Interface(typestr=np.dtype(dtype).str, data=(x.ctypes.data, False)))
    with pytest.raises(TypeError, match="byte-swapped"):
        fovea.astype(np.ones(2), np.dtype(dtype))


def test_one_byte_types_have_no_byte_order():
    assert fovea.asarray(np.arange(3, dtype=">u1")).dtype == np.uint8
    assert fovea.asarray(np.arange(3, dtype=">i1")).dtype == np.int8


def test_negative_or_unbroadcastable_shapes():
    with pytest.raises(ValueError, match="broadcast"):
        fovea.add(np.ones((2, 3)), np.ones((4,)))
    with pytest.raises(ValueError, match="negative"):
        fovea.empty((2, -1))
    with pytest.raises(TypeError):
        fovea.empty("abc")


# ---- NULL data, interfaces, capsules --------------------------------------------------------


def test_null_data_with_elements():
    with pytest.raises(ValueError, match="NULL"):
        fovea.asarray(Interface(shape=(3,), data=(0, False)))
    with pytest.raises(ValueError, match="NULL"):
        fovea.asarray(Interface(cuda=True, shape=(2, 2), data=(0, False)))


def test_null_data_is_fine_when_empty():
    a = fovea.asarray(Interface(shape=(0, 4), data=(0, False)))
    assert a.shape == (0, 4) and a.size == 0
    assert np.asarray(a).shape == (0, 4)


def test_malformed_interfaces():
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="data"):
        fovea.asarray(Interface(data=None))
    with pytest.raises(ValueError, match="typestr"):
        fovea.asarray(Interface(typestr=None, data=(x.ctypes.data, False)))
    with pytest.raises(ValueError, match="strides"):
        fovea.asarray(Interface(strides=(4, 4), data=(x.ctypes.data, False)))
    with pytest.raises(ValueError, match="typestr"):
        fovea.asarray(Interface(typestr="??", data=(x.ctypes.data, False)))
    with pytest.raises(ValueError, match="masked"):
        fovea.asarray(Interface(cuda=True, mask=np.ones(3, bool), data=(x.ctypes.data, False)))
    with pytest.raises(ValueError, match="stream 0"):
        fovea.asarray(Interface(cuda=True, stream=0, data=(x.ctypes.data, False)))


def test_dlpack_capsule_consumed_twice():
    x = np.arange(5.0)
    cap = x.__dlpack__()
    fovea.asarray(cap)
    with pytest.raises(ValueError, match="already consumed"):
        fovea.asarray(cap)


def test_versioned_capsule_is_refused_without_consuming():
    x = np.arange(5.0)
    cap = x.__dlpack__(max_version=(1, 0))
    with pytest.raises(TypeError, match="versioned"):
        fovea.asarray(cap)
    del cap  # its own destructor frees it


def test_bad_dlpack_producers():
    with pytest.raises(TypeError, match="not a capsule"):
        fovea.asarray(BadDLPack(42))
    import ctypes

    other = ctypes.pythonapi.PyCapsule_New
    other.restype = ctypes.py_object
    other.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    cap = other(1, b"something_else", None)
    with pytest.raises(TypeError, match="not a DLPack capsule"):
        fovea.asarray(cap)


def test_not_an_array():
    for obj in (object(), "text", {"a": 1}, None):
        with pytest.raises(TypeError, match="cannot import"):
            fovea.asarray(obj)
    with pytest.raises(TypeError, match="cannot import"):
        fovea.add(object(), np.ones(2))


def test_refused_dlpack_exports():
    x = np.arange(4.0)
    a = fovea.asarray(x)
    with pytest.raises(BufferError, match="None"):
        a.__dlpack__(stream=5)
    with pytest.raises(BufferError, match="copy=True"):
        a.__dlpack__(dl_device=(2, 0))
    x.flags.writeable = False
    r = fovea.asarray(x)
    with pytest.raises(BufferError, match="read-only"):
        r.__dlpack__()
    y = np.from_dlpack(r, copy=True)
    assert not np.shares_memory(x, y) and (y == x).all()
    assert _fovea._refcount(a) == 1 and _fovea._refcount(r) == 1


# ---- devices and streams ----------------------------------------------------------------------


def test_config_without_gpu_reports_backends():
    cfg = fovea.config()
    assert isinstance(cfg, dict)
    assert "cpu" in cfg["backends"]
    assert cfg["version"] == fovea.__version__
    assert set(cfg["cuda"]) >= {"built", "available", "reason"}
    if not fovea.gpu_available():
        assert "cuda" not in cfg["backends"] and cfg["cuda"]["reason"]


@pytest.mark.skipif(fovea.gpu_available(), reason="needs a machine without a usable GPU")
def test_cuda_requests_without_gpu_raise_device_error_saying_why():
    reason = fovea.config()["cuda"]["reason"]
    x = np.ones(3, np.float32)
    for call in (lambda: fovea.to_device(x, "cuda"), lambda: fovea.to_device(x, "cuda:1"),
                 lambda: fovea.empty(3, device="cuda"), lambda: fovea.copy(x, "cuda:0"),
                 lambda: _fovea.to_device(x, "cuda")):
        with pytest.raises(fovea.DeviceError, match="CUDA is unavailable") as e:
            call()
        assert reason in str(e.value)


@pytest.mark.gpu
def test_nonexistent_cuda_device():
    with pytest.raises(fovea.DeviceError, match="does not exist"):
        fovea.empty(3, device="cuda:999")


def test_bad_device_arguments():
    x = np.ones(3)
    with pytest.raises(ValueError, match="unknown device"):
        fovea.to_device(x, "tpu")
    with pytest.raises(ValueError, match="unknown device"):
        fovea.to_device(x, "cuda:x")
    with pytest.raises(TypeError, match="device"):
        fovea.to_device(x, 3)


def test_bad_stream_arguments():
    x = np.ones(3)
    with pytest.raises(TypeError, match="stream"):
        fovea.add(x, x, stream="default")
    with pytest.raises(ValueError, match="stream"):
        fovea.astype(x, "int8", stream=-5)


# ---- the command line and test hooks ----------------------------------------------------------


def test_cli_main_arguments():
    with pytest.raises(TypeError, match="single string"):
        _fovea.cli_main("fovea")
    with pytest.raises(ValueError):
        _fovea.cli_main([])
    with pytest.raises(TypeError, match="argv"):
        _fovea.cli_main(["fovea", 3])


def test_refcount_hook_needs_an_array():
    with pytest.raises(TypeError, match="fovea.Array"):
        _fovea._refcount(np.ones(2))


def test_errors_do_not_leak_references():
    x = np.ones((2, 3))
    y = np.ones(4)
    before = sys.getrefcount(x), sys.getrefcount(y)
    for _ in range(20):
        with pytest.raises(ValueError):
            fovea.add(x, y)
        with pytest.raises(TypeError):
            fovea.astype(x, "complex64")
    assert (sys.getrefcount(x), sys.getrefcount(y)) == before
