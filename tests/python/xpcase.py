"""Array backends for tests that run once with NumPy and once with CuPy inputs.

``xp = xp_fixture()`` in a test module gives its tests an ``xp`` fixture,
parametrised over "numpy" and "cupy" (the CuPy case carries the ``gpu`` marker
and needs the ``cp`` fixture of conftest.py, so it is skipped without a GPU):
``xp.put(a)`` turns a NumPy array into the backend's array (None stays None),
``xp.get(r)`` checks that a result is the backend's array type and returns it as
NumPy. ``scalars=True`` also accepts Python / NumPy scalars from ``get``.
``same(got, want)``: equal values, dtype and shape.
"""
import numpy as np
import pytest


class NumpyCase:
    name = "numpy"

    def __init__(self, scalars=False):
        self.scalars = scalars

    @staticmethod
    def put(a):
        return a

    def get(self, a):
        ok = (np.ndarray, np.generic, float, int) if self.scalars else (np.ndarray,)
        assert isinstance(a, ok), type(a)
        return np.asarray(a)


class CupyCase:
    name = "cupy"

    def __init__(self, cp, scalars=False):
        self.cp = cp
        self.scalars = scalars

    def put(self, a):
        return None if a is None else self.cp.asarray(a)

    def get(self, a):
        if self.scalars and isinstance(a, (np.generic, float, int)):
            return np.asarray(a)
        assert isinstance(a, self.cp.ndarray), type(a)
        return a.get()


def xp_fixture(scalars=False, numpy=None, cupy=None):
    """The ``xp`` fixture; numpy / cupy: extra attributes of each case (tolerances)."""

    @pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
    def xp(request):
        if request.param == "numpy":
            case, extra = NumpyCase(scalars), numpy
        else:
            case, extra = CupyCase(request.getfixturevalue("cp"), scalars), cupy
        for k, v in (extra or {}).items():
            setattr(case, k, v)
        return case

    return xp


def same(got, want):
    """got equals want: values, dtype and shape."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
